import type { RunLaunch } from "../loop/extension.js";
import { appendCustom } from "../loop/journal.js";
import type { RunExtension } from "../loop/run-context.js";
import type { RunTodos } from "../tools/run-services.js";
import type { Todo } from "../tools/todo-store.js";
import { TODOS_ENTRY_TYPE, todosOnPath } from "./todo-record.js";

/**
 * The session's todo list as a feature of a run: it starts from the list on the path the run
 * continues, `todowrite` replaces it through the `RunTodos` service, and a step that changed it
 * records the new list once its tool results are written, so the record sits on the same branch.
 */
export function todoExtension(launch: RunLaunch): RunExtension & { services(): RunTodos } {
  let todos: readonly Todo[] = todosOnPath(launch.path);
  let changed = false;
  const service: RunTodos = {
    get: () => todos,
    set(next) {
      todos = next.map((todo) => ({ ...todo }));
      changed = true;
    },
  };
  return {
    name: "todos",
    services: () => service,
    async afterStep(ctx) {
      if (!changed) return;
      changed = false;
      await appendCustom(ctx, TODOS_ENTRY_TYPE, { todos });
    },
  };
}

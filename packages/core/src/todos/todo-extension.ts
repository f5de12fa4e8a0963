import type { RunLaunch } from "../loop/extension.js";
import { appendCustom } from "../loop/journal.js";
import type { RunExtension } from "../loop/run-context.js";
import { TODOS_ENTRY_TYPE, todosOnPath } from "./todo-record.js";
import { type RunTodos, type Todo, todosKey } from "./todo-store.js";
import { todoReadTool } from "./todoread.js";
import { todoWriteTool } from "./todowrite.js";

/**
 * The session's todo list as a feature of a run: it offers `todowrite` and `todoread`, starts from
 * the list on the path the run continues, `todowrite` replaces it through the run's `todosKey` slot, and a step that changed it
 * records the new list once its tool results are written, so the record sits on the same branch.
 */
export function todoExtension(launch: RunLaunch): RunExtension {
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
    tools: [todoWriteTool(), todoReadTool()],
    start(ctx) {
      ctx.values.set(todosKey, service);
    },
    afterStep(ctx) {
      // Nothing to wait for unless the list changed in this step.
      if (!changed) return;
      changed = false;
      return appendCustom(ctx, TODOS_ENTRY_TYPE, { todos }).then(() => {});
    },
  };
}

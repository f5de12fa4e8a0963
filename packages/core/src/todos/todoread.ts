import { z } from "zod";
import { ArborError } from "../errors.js";
import { defineTool } from "../tools/tool.js";
import { renderTodos, type TodoStore, todosKey } from "./todo-store.js";

export const TodoReadInputSchema = z.strictObject({});

/** Reads back the session's todo list, e.g. after a compaction dropped the last todowrite; the run's inside a run. */
export function todoReadTool(options: { todos?: TodoStore } = {}) {
  return defineTool({
    name: "todoread",
    effects: "none",
    description: "Read the todo list of this session.",
    input: TodoReadInputSchema,
    async execute(_input, ctx) {
      const run = ctx.run?.get(todosKey);
      if (!run && !options.todos)
        throw new ArborError("invalid_input", "The todo list belongs to a run; this tool only works inside one.");
      const todos = run ? run.get() : await options.todos!.get(ctx.sessionId);
      const open = todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
      return { output: renderTodos(todos), title: `${open} todos`, metadata: { todos: [...todos] } };
    },
  });
}

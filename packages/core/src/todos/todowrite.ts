import { z } from "zod";
import { ArborError } from "../errors.js";
import { defineTool } from "../tools/tool.js";
import { renderTodos, TodoSchema, type TodoStore, todosKey } from "./todo-store.js";

export const TodoWriteInputSchema = z.strictObject({
  todos: z.array(TodoSchema).describe("The complete updated list; it replaces the previous one."),
});

/**
 * Replaces the session's todo list (the whole list each time, so there is nothing to merge). Inside a
 * run the list is the run's (`todosKey`); `todos` serves the tool called on its own.
 */
export function todoWriteTool(options: { todos?: TodoStore } = {}) {
  return defineTool({
    name: "todowrite",
    // The whole list replaces the last one each time.
    effects: "idempotent-by-key",
    description:
      "Replace the todo list of this session. Use it to plan multi-step work and to mark progress: send the whole " +
      "list each time, with exactly one item in_progress while working and items completed as soon as they are done.",
    input: TodoWriteInputSchema,
    async execute(input, ctx) {
      // Inside a run the list belongs to the session's path; the store serves tools called on their own.
      const run = ctx.run?.get(todosKey);
      if (run) run.set(input.todos);
      else if (options.todos) await options.todos.set(ctx.sessionId, input.todos);
      else throw new ArborError("invalid_input", "The todo list belongs to a run; this tool only works inside one.");
      const open = input.todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
      ctx.metadata({ title: `${open} todos`, metadata: { todos: input.todos } });
      // The list lives in the session, never in the workspace.
      return { output: renderTodos(input.todos), title: `${open} todos`, metadata: { todos: input.todos }, changedFiles: [] };
    },
  });
}

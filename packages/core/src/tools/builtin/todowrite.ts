import { z } from "zod";
import { renderTodos, TodoSchema, type TodoStore } from "../todo-store.js";
import { defineTool } from "../tool.js";

export const TodoWriteInputSchema = z.strictObject({
  todos: z.array(TodoSchema).describe("The complete updated list; it replaces the previous one."),
});

/** Replaces the session's todo list (the whole list each time, so there is nothing to merge). */
export function todoWriteTool(options: { todos: TodoStore }) {
  return defineTool({
    name: "todowrite",
    description:
      "Replace the todo list of this session. Use it to plan multi-step work and to mark progress: send the whole " +
      "list each time, with exactly one item in_progress while working and items completed as soon as they are done.",
    input: TodoWriteInputSchema,
    async execute(input, ctx) {
      // Inside a run the list belongs to the session's path; the store serves tools called on their own.
      if (ctx.run?.todos) ctx.run.todos.set(input.todos);
      else await options.todos.set(ctx.sessionId, input.todos);
      const open = input.todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
      ctx.metadata({ title: `${open} todos`, metadata: { todos: input.todos } });
      return { output: renderTodos(input.todos), title: `${open} todos`, metadata: { todos: input.todos } };
    },
  });
}

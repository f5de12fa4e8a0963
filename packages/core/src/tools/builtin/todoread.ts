import { z } from "zod";
import { renderTodos, type TodoStore } from "../todo-store.js";
import { defineTool } from "../tool.js";

export const TodoReadInputSchema = z.strictObject({});

/** Reads back the session's todo list, e.g. after a compaction dropped the last todowrite. */
export function todoReadTool(options: { todos: TodoStore }) {
  return defineTool({
    name: "todoread",
    description: "Read the todo list of this session.",
    input: TodoReadInputSchema,
    async execute(_input, ctx) {
      const todos = ctx.run?.todos ? ctx.run.todos.get() : await options.todos.get(ctx.sessionId);
      const open = todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
      return { output: renderTodos(todos), title: `${open} todos`, metadata: { todos: [...todos] } };
    },
  });
}

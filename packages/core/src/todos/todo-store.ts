import { z } from "zod";
import { runKey } from "../tools/run-values.js";

export const TodoSchema = z.strictObject({
  content: z.string().min(1).describe("What to do, in a short imperative sentence."),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]).describe("Keep at most one in_progress."),
  priority: z.enum(["high", "medium", "low"]).optional(),
  id: z.string().min(1).optional(),
});

export type Todo = z.infer<typeof TodoSchema>;

/**
 * Where the todo lists live, per session. The tools take it as an option rather than keeping a
 * module-level map, so each runtime has its own, and a runtime that persists todos (as session
 * entries) can plug in its own implementation.
 */
export interface TodoStore {
  get(sessionId: string): Promise<readonly Todo[]> | readonly Todo[];
  set(sessionId: string, todos: readonly Todo[]): Promise<void> | void;
}

/** The todo list of the run's session as of its path; `set` replaces it and the run records it after the step. */
export interface RunTodos {
  get(): readonly Todo[];
  set(todos: readonly Todo[]): void;
}

/** The run's todo list, set by the todo feature for `todowrite` and `todoread`. */
export const todosKey = runKey<RunTodos>("todos");

/** Todo lists held by this instance, for one runtime's lifetime. */
export class MemoryTodoStore implements TodoStore {
  private readonly lists = new Map<string, readonly Todo[]>();

  get(sessionId: string): readonly Todo[] {
    return this.lists.get(sessionId) ?? [];
  }

  set(sessionId: string, todos: readonly Todo[]): void {
    this.lists.set(
      sessionId,
      todos.map((todo) => ({ ...todo })),
    );
  }
}

const MARK: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[→]", completed: "[✓]", cancelled: "[✗]" };

/** The list as the model reads it back, with the same marks the plan view uses. */
export function renderTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return "(no todos)";
  const open = todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
  const lines = todos.map(
    (t) => `${MARK[t.status]} ${t.priority && t.priority !== "medium" ? `(${t.priority}) ` : ""}${t.content}`,
  );
  return `${lines.join("\n")}\n\n${open} of ${todos.length} open.`;
}

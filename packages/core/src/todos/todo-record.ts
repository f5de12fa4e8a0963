import { z } from "zod";
import type { Entry } from "../model/entry.js";
import { type Todo, TodoSchema } from "./todo-store.js";

/**
 * A custom entry holding a session's whole todo list after a step changed it. Keeping the list on
 * the path (rather than beside the session) means a branch carries the list as it stood at its
 * fork, and a continued session reads back the list its last run left.
 */
export const TODOS_ENTRY_TYPE = "arbor.todos";

export const TodosRecordSchema = z.looseObject({ todos: z.array(TodoSchema) });
export type TodosRecord = z.infer<typeof TodosRecordSchema>;

/** The todo list as of the end of a path: the latest record on it, `[]` when none; damaged records are skipped. Pure. */
export function todosOnPath(path: readonly Entry[]): readonly Todo[] {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type !== "custom" || entry.customType !== TODOS_ENTRY_TYPE) continue;
    const parsed = TodosRecordSchema.safeParse(entry.data);
    if (parsed.success) return parsed.data.todos;
  }
  return [];
}

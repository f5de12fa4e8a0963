import type { Snapshot } from "@arbor/core";
import { useMemo } from "react";

interface TodoView {
  content: string;
  status: string;
}

/** The todo list as the active path leaves it: the latest `arbor.todos` record on the path (branches keep their own). */
export function todosOf(snapshot: Snapshot): TodoView[] {
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  for (let i = snapshot.activePath.length - 1; i >= 0; i--) {
    const e = byId.get(snapshot.activePath[i] as string);
    if (e?.type !== "custom" || e.customType !== "arbor.todos") continue;
    const todos = (e.data as { todos?: unknown } | null)?.todos;
    if (!Array.isArray(todos)) continue;
    return todos
      .filter((t): t is TodoView => typeof t?.content === "string" && typeof t?.status === "string")
      .map((t) => ({ content: t.content, status: t.status }));
  }
  return [];
}

const MARK: Record<string, string> = { completed: "☑", in_progress: "◐", cancelled: "☒", pending: "☐" };

/** The session's todo list, folded under a count of what is done. */
export function TodoPanel({ snapshot }: { snapshot: Snapshot }) {
  const todos = useMemo(() => todosOf(snapshot), [snapshot]);
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <details className="todo-panel" data-testid="todo-panel">
      <summary>
        Todos: {done} of {todos.length} done
      </summary>
      <ul className="plain-list">
        {todos.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one recorded list, shown as it is.
          <li key={i} className={`todo todo-${t.status}`}>
            <span aria-hidden="true">{MARK[t.status] ?? "☐"}</span> {t.content}{" "}
            <span className="muted">({t.status.replace("_", " ")})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

import type { Entry } from "@arbor/core";
import { goalTreeOnPath, renderTodos, todosOnPath } from "@arbor/core/session";
import { getTrace, listSubTraces } from "@arbor/core/trace";
import { resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { renderShow } from "../render/show.js";
import { renderParentGoal, renderPlan, renderSubTraces } from "../render/trace.js";
import type { CommandContext } from "./command.js";

/** The todo list as of the leaf, indented under a heading; nothing when the path never had one. */
function renderTodoSection(todos: ReturnType<typeof todosOnPath>): string[] {
  if (todos.length === 0) return [];
  return [
    "Todos:",
    ...renderTodos(todos)
      .split("\n")
      .map((line) => (line ? `  ${line}` : line)),
  ];
}

export async function runSessionsShow(ctx: CommandContext): Promise<void> {
  const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const snapshot = await ctx.store.getSnapshot(id);
  if (ctx.json) {
    writeJson(ctx.io.stdout, snapshot);
    return;
  }
  // The snapshot already holds the active path: the plan comes from it, not from a second read.
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  const path = snapshot.activePath.map((entryId) => byId.get(entryId)).filter((e): e is Entry => e !== undefined);
  const trace = { goalTree: goalTreeOnPath(path) ?? null, subTraces: await listSubTraces(ctx.store, id) };
  const parentId = snapshot.session.parentSessionId;
  const parent = parentId ? await getTrace(ctx.store, parentId).catch(() => undefined) : undefined;
  const sections = [
    renderParentGoal(snapshot.session, parent?.goalTree ?? null),
    trace.goalTree ? renderPlan(trace.goalTree) : [],
    renderSubTraces(trace.subTraces, trace.goalTree),
    renderTodoSection(todosOnPath(path)),
  ];
  writeLines(ctx.io.stdout, renderShow(snapshot, { sections }));
}

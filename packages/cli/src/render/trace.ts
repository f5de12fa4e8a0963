import { type GoalTree, type SessionMeta, toOutline } from "@arbor/core/internal";
import { oneLine, table, truncate } from "./text.js";

/** The plan of a trace as an outline, each agent_call goal followed by the sub-traces it started. */
export function renderPlan(tree: GoalTree): string[] {
  const lines = [`Plan: ${truncate(oneLine(tree.mission), 100) || "(no mission)"}`];
  if (tree.goals.length === 0) return [...lines, "  (no goals yet)"];
  const outline = toOutline(tree).split("\n");
  // toOutline lists goals depth first with "(id: N" in each line; agent_call goals get their sub-traces under them.
  for (const line of outline) {
    lines.push(`  ${line}`);
    const id = /\(id: (\d+)/.exec(line)?.[1];
    const goal = id === undefined ? undefined : tree.goals.find((g) => g.id === id);
    if (goal?.type !== "agent_call") continue;
    lines.push(`      agent_call (${goal.agentCallMode ?? "sub-agents"}):`);
    for (const subId of goal.subTraceIds ?? []) {
      const meta = goal.subTraceMetadata?.[subId];
      lines.push(`        ${subId}  ${meta?.status ?? "running"}  ${truncate(oneLine(meta?.task ?? ""), 60)}`);
    }
  }
  return lines;
}

/** Sub-traces of a trace: id, status, agent, the goal that started them, and their task. */
export function renderSubTraces(subs: readonly SessionMeta[], tree: GoalTree | null): string[] {
  if (subs.length === 0) return [];
  const goalName = (id: string | undefined) => {
    if (id === undefined) return "";
    const goal = tree?.goals.find((g) => g.id === id);
    return goal ? `${id} ${truncate(oneLine(goal.description), 30)}` : id;
  };
  return [
    `Sub-traces (${subs.length}):`,
    ...table(
      ["ID", "STATUS", "AGENT", "GOAL", "MESSAGES", "TASK"],
      subs.map((s) => [
        s.id,
        s.status ?? "",
        s.agentType,
        goalName(s.parentGoalId),
        String(s.totalMessages),
        truncate(oneLine(s.task ?? s.title ?? ""), 50),
      ]),
    ).map((l) => `  ${l}`),
  ];
}

/** For a sub-trace: its parent and the parent's agent_call goal that started it. */
export function renderParentGoal(meta: SessionMeta, parentTree: GoalTree | null): string[] {
  if (!meta.parentSessionId) return [];
  const goal = meta.parentGoalId === undefined ? undefined : parentTree?.goals.find((g) => g.id === meta.parentGoalId);
  const described = goal
    ? `goal ${goal.id} "${truncate(oneLine(goal.description), 60)}" (${goal.type}${goal.agentCallMode ? `, ${goal.agentCallMode}` : ""}, ${goal.status})`
    : meta.parentGoalId !== undefined
      ? `goal ${meta.parentGoalId}`
      : "(no goal)";
  return [`Started by ${meta.parentSessionId}, ${described}`];
}

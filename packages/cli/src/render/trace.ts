import type { SessionMeta } from "@arbor/core";
import { displayNumbers, GOAL_MARKERS, type GoalTree, goalLabel, planView } from "@arbor/core/session";
import { oneLine, table, truncate } from "./text.js";

/**
 * The plan of a trace as a tree, numbered as the model sees it ("1.", "2.1") and never by internal
 * id; each agent_call goal is followed by the sub-traces it started. Abandoned goals are hidden, and
 * counted.
 */
export function renderPlan(tree: GoalTree): string[] {
  const lines = [`Plan: ${truncate(oneLine(tree.mission), 100) || "(no mission)"}`];
  const view = planView(tree);
  const visit = (parentId: string | null, depth: number) => {
    for (const goal of view.children.get(parentId) ?? []) {
      const number = view.numberOf.get(goal.id) as string;
      const indent = "  ".repeat(depth + 1);
      lines.push(`${indent}${GOAL_MARKERS[goal.status]} ${goalLabel(number, truncate(oneLine(goal.description), 100))}`);
      if (goal.type === "agent_call") {
        lines.push(`${indent}    agent_call (${goal.agentCallMode ?? "sub-agents"}):`);
        for (const subId of goal.subTraceIds ?? []) {
          const meta = goal.subTraceMetadata?.[subId];
          lines.push(`${indent}      ${subId}  ${meta?.status ?? "running"}  ${truncate(oneLine(meta?.task ?? ""), 60)}`);
        }
      }
      visit(goal.id, depth + 1);
    }
  };
  visit(null, 0);
  if ((view.children.get(null)?.length ?? 0) === 0) lines.push("  (no goals yet)");
  const abandoned = tree.goals.length - view.numberOf.size;
  if (abandoned > 0) lines.push(`  (${abandoned} abandoned goal${abandoned === 1 ? "" : "s"} not shown)`);
  return lines;
}

/** A goal as people read it: its display number, or "(abandoned)" for one the plan no longer shows. */
function goalNumber(tree: Pick<GoalTree, "goals"> | null | undefined, id: string): string {
  return (tree ? displayNumbers(tree).get(id) : undefined) ?? "(abandoned)";
}

/** Sub-traces of a trace: id, status, agent, the goal that started them, and their task. */
export function renderSubTraces(subs: readonly SessionMeta[], tree: GoalTree | null): string[] {
  if (subs.length === 0) return [];
  const goalName = (id: string | undefined) => {
    if (id === undefined) return "";
    const goal = tree?.goals.find((g) => g.id === id);
    return goal ? `${goalNumber(tree, id)} ${truncate(oneLine(goal.description), 30)}` : "";
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
    ? `goal ${goalNumber(parentTree, goal.id)} "${truncate(oneLine(goal.description), 60)}" (${goal.type}${goal.agentCallMode ? `, ${goal.agentCallMode}` : ""}, ${goal.status})`
    : "(no goal)";
  return [`Started by ${meta.parentSessionId}, ${described}`];
}

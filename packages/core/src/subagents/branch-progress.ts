import type { RunEventInput } from "../loop/run-context.js";
import type { SubagentStatus } from "../model/entry.js";
import type { ToolProgress } from "../tools/tool.js";

/** Where one branch of a batch is, as the parent's tool call reports it while the batch runs. */
export interface BranchProgress {
  task: string;
  traceId: string;
  status: "running" | "done" | "failed";
  /** Model calls the branch has made. */
  steps: number;
  /** The tool it called last, if any. */
  lastTool?: string;
}

/** One line for all the branches: how many are done, and what each running one did last. */
export function branchProgressTitle(branches: readonly BranchProgress[]): string {
  const done = branches.filter((b) => b.status !== "running").length;
  const running = branches
    .map((b, i) => ({ b, n: i + 1 }))
    .filter(({ b }) => b.status === "running")
    .map(({ b, n }) => `#${n} ${b.lastTool ?? "thinking"} (${b.steps} step${b.steps === 1 ? "" : "s"})`);
  return [`${done}/${branches.length} branches done`, ...running].join(" · ");
}

/**
 * Follows the branches' run events and their ends, and reports where every branch is after what moves
 * a branch on (a model call ended, a tool started, the branch ended). Each report carries every
 * branch, so one per event made a batch's reports grow with the square of its branches: what moves
 * within one turn of the event loop is reported once, at the turn's end, and the last branch's end at
 * once (the batch's call ends right after it, and its last report must come before).
 */
export function branchProgressTracker(
  branches: readonly { task: string; traceId: string }[],
  report: (update: ToolProgress) => void,
): { see(event: RunEventInput, traceId: string): void; ended(traceId: string, status: SubagentStatus): void } {
  const state: BranchProgress[] = branches.map((b) => ({ task: b.task, traceId: b.traceId, status: "running", steps: 0 }));
  const byId = new Map(state.map((b) => [b.traceId, b]));
  let queued: ReturnType<typeof setImmediate> | undefined;
  const send = () => {
    if (queued !== undefined) clearImmediate(queued);
    queued = undefined;
    report({ title: branchProgressTitle(state), metadata: { branches: state.map((b) => ({ ...b })) } });
  };
  const sendSoon = () => {
    queued ??= setImmediate(send);
  };
  return {
    see(event, traceId) {
      const branch = byId.get(traceId);
      if (!branch) return;
      if (event.type === "llm_end") branch.steps++;
      else if (event.type === "tool_start") branch.lastTool = event.tool;
      else return;
      sendSoon();
    },
    ended(traceId, status) {
      const branch = byId.get(traceId);
      if (!branch) return;
      branch.status = status === "completed" ? "done" : "failed";
      if (state.every((b) => b.status !== "running")) send();
      else sendSoon();
    },
  };
}

import type { SubagentStatus } from "../model/entry.js";
import { runKey } from "../tools/run-values.js";
import type { ToolProgress } from "../tools/tool-progress.js";

export type SubAgentMode = "explore" | "delegate";

export interface SubTraceRequest {
  mode: SubAgentMode;
  /** One sub-trace per task, run in parallel (up to the trace's concurrency budget). */
  tasks: readonly string[];
  /** delegate: the sub-agent to run (one whose mode is `subagent` or `all`); `general` when absent. */
  agent?: string;
  /** explore: the context each branch starts from; without it each inherits the parent's messages. */
  background?: string;
  /** The tool call that asked, for the batch entries. */
  callId: string;
  /** Told where the branches are as they go (the calling tool shows it as its progress). */
  progress?: (update: ToolProgress) => void;
  /** The assistant message that made the call: an inheriting branch sees the parent up to before it. */
  messageId: string;
  signal: AbortSignal;
}

export interface SubTraceOutcome {
  traceId: string;
  task: string;
  status: SubagentStatus;
  /** What the parent's model reads of this branch. */
  summary: string;
}

export interface SubTraceBatch {
  batchId: string;
  /** The goal that records the call (`agent_call`). */
  goalId: string;
  outcomes: SubTraceOutcome[];
}

export interface SubTraceRunner {
  /**
   * Why this run may not start sub-agents (it is nested as deep as allowed), as a message for the
   * model; undefined when it may. `run` refuses in that case too.
   */
  refusal(): string | undefined;
  run(request: SubTraceRequest): Promise<SubTraceBatch>;
  /**
   * The run was woken after its process died with tool call `callId` left open: when that call
   * runs again, `run` takes up the batch it had recorded (its branches continue from their own
   * journals, recorded results stand) instead of starting new sub-agents. A call that had
   * recorded no batch had started nothing, so it starts afresh.
   */
  resume(callId: string): void;
}

/** The run's sub-trace runner, set by the sub-agent feature for `explore` and `delegate`. */
export const subTracesKey = runKey<SubTraceRunner>("subTraces");

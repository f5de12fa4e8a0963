import type { GoalTree } from "../goal/goal-tree.js";
import type { SubagentStatus } from "../model/entry.js";
import type { RunPlan } from "../plan/run-plan.js";
import type { Todo } from "./todo-store.js";
import type { ToolProgress } from "./tool-progress.js";

/**
 * What a run offers the tools that act on the run itself (`goal`, `explore`, `delegate`). The loop
 * builds one per run; outside a run (a tool invoked directly) it is absent and those tools say so.
 */
export interface RunServices {
  goals: RunGoals;
  subTraces: SubTraceRunner;
  /** The two-phase plan (`plan_create` / `plan_update`); absent where plan mode is off. */
  plan?: RunPlan;
  /** The session's todo list, recorded on its path; absent outside a runtime's runs. */
  todos?: RunTodos;
}

/** The todo list of the run's session as of its path; `set` replaces it and the run records it after the step. */
export interface RunTodos {
  get(): readonly Todo[];
  set(todos: readonly Todo[]): void;
}

/** The run's goal tree: the latest on the session's active path, changed as the run goes. */
export interface RunGoals {
  get(): GoalTree | undefined;
  /** The task as the user gave it, the mission of a tree the run starts. */
  readonly mission: string;
  /**
   * Makes `tree` the run's tree. `added` are the goals the change added (an abandoned goal's
   * replacements among them); the loop publishes the change and collapses closed goals' messages.
   */
  set(tree: GoalTree, change: { affectedGoals: readonly string[]; addedGoals: readonly string[] }): void;
}

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
}

import type { A2AAgentConfig } from "../config/schema.js";

/** What the runtime knows of an agent to tell whether `delegate` may hand it work. */
export interface SubAgentInfo {
  name: string;
  description?: string | undefined;
  mode: "primary" | "subagent" | "all";
  hidden?: boolean | undefined;
  /** A remote agent: `delegate` sends it the task over A2A instead of running it here. */
  a2a?: A2AAgentConfig | undefined;
}

/** The agent a `delegate` call runs when it names none. */
export const DEFAULT_DELEGATE_AGENT = "general";

/**
 * The agents a `delegate` call may name: those that run as sub-agents (mode `subagent` or `all`),
 * less the hidden ones and `explore`, which has a tool of its own. One list for the check of a
 * call and for the tool's description, so the model is offered exactly what the check accepts.
 */
export function delegateTargets<T extends SubAgentInfo>(agents: Iterable<T>): T[] {
  return [...agents].filter((a) => a.mode !== "primary" && !a.hidden && a.name !== "explore");
}

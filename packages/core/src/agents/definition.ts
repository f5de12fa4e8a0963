import type { AgentInfo } from "./presets.js";

/**
 * An agent the runtime can run, in one place: its permission preset (which tools it may use, and
 * how), plus the prompt, model and limits the loop gives it. The built-in ones are
 * `BUILTIN_AGENTS`; `createRuntime({ agents })` adds or replaces them by name.
 */
export interface AgentDefinition extends AgentInfo {
  /** Replaces the default system prompt's opening. */
  prompt?: string;
  /** `provider/model` this agent uses unless the run names one. */
  model?: string;
  maxTurns?: number;
  temperature?: number;
}

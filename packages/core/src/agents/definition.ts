import type { A2AAgentConfig } from "../config/schema.js";
import type { ThinkingLevel } from "../model/entry.js";
import type { PermissionRule } from "../permissions/permission.js";
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
  /** The thinking level this agent runs at unless the run or the session says otherwise. */
  thinking?: ThinkingLevel;
  maxTurns?: number;
  /** Only these tools (exact names): every other tool is denied, whatever the rules say. */
  tools?: readonly string[];
  /** The user's rules for this agent alone, applied after the global user rules so they win. */
  permissionOverrides?: readonly PermissionRule[];
  temperature?: number;
  /** A remote agent spoken to over A2A: it runs only as a sub-agent, on its own server. */
  a2a?: A2AAgentConfig;
}

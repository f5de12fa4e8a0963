import type { A2AAgentConfig, AgentConfig } from "../config/schema.js";
import { rulesFromConfig } from "../permissions/permission.js";
import type { AgentDefinition } from "./definition.js";
import { BUILTIN_AGENTS } from "./presets.js";

/**
 * The agents `arbor.json` defines, as definitions the runtime runs. Pure: a `promptFile` was
 * already read into `prompt` when the config was loaded.
 */
export function agentsFromConfig(agents: Readonly<Record<string, AgentConfig>>): Record<string, AgentDefinition> {
  const out: Record<string, AgentDefinition> = {};
  for (const [name, config] of Object.entries(agents)) {
    if (config.a2a !== undefined) {
      out[name] = remoteAgent(name, config.a2a, config.description);
      continue;
    }
    const definition: AgentDefinition = {
      name,
      description: config.description ?? "",
      mode: config.mode ?? "primary",
      permission: [...BUILTIN_AGENTS[config.preset ?? "build"].permission],
    };
    if (config.prompt !== undefined) definition.prompt = config.prompt;
    if (config.model !== undefined) definition.model = config.model;
    if (config.thinking !== undefined) definition.thinking = config.thinking;
    if (config.maxTurns !== undefined) definition.maxTurns = config.maxTurns;
    if (config.tools !== undefined) definition.tools = [...config.tools];
    if (config.permission !== undefined) definition.permissionOverrides = rulesFromConfig(config.permission);
    out[name] = definition;
  }
  return out;
}

/**
 * A remote agent as the runtime knows it: a sub-agent offered no tools of Arbor's (its own server
 * runs its tools), whose sub-run's model is its A2A connection (see `llm/a2a`).
 */
function remoteAgent(name: string, a2a: A2AAgentConfig, description: string | undefined): AgentDefinition {
  return {
    name,
    description: description ?? `A remote agent (A2A) at ${a2a.url}`,
    mode: "subagent",
    permission: [],
    tools: [],
    a2a,
  };
}

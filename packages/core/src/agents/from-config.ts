import type { AgentConfig } from "../config/schema.js";
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
    const definition: AgentDefinition = {
      name,
      description: config.description,
      mode: config.mode,
      permission: [...BUILTIN_AGENTS[config.preset].permission],
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

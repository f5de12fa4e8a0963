import type { LanguageModelV4 } from "@ai-sdk/provider";
import { PROVIDERS } from "../llm/model-ref.js";
import type { AgentDefinition } from "../loop/types.js";
import type { RuntimeDefaults } from "./types.js";

/**
 * What clients should show as the defaults: the model a run without one resolves to (the same order
 * as `resolveModel`, before any session or agent choice) and the agents `resolveAgent` offers. Pure.
 */
export function runtimeDefaults(
  model: string | LanguageModelV4 | undefined,
  agents: Readonly<Record<string, AgentDefinition>>,
): RuntimeDefaults {
  return {
    model: model === undefined ? undefined : typeof model === "string" ? model : `${model.provider}/${model.modelId}`,
    defaultAgent: "build",
    agents: Object.values(agents)
      .filter((a) => !a.hidden && a.mode !== "subagent")
      .map((a) => ({
        name: a.name,
        ...(a.description ? { description: a.description } : {}),
        ...(a.model ? { model: a.model } : {}),
      })),
    providers: [...PROVIDERS],
  };
}

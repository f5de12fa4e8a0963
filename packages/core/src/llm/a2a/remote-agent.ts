import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { A2AAgentConfig } from "../../config/schema.js";
import { ArborError } from "../../errors.js";

export type RemoteAgentEnv = Readonly<Record<string, string | undefined>>;

/** The bearer token a remote agent's config names (`env:VARIABLE`), read now; `missing_api_key` when it is not set. */
export function remoteAgentToken(name: string, config: A2AAgentConfig, env: RemoteAgentEnv): string | undefined {
  if (config.token === undefined) return undefined;
  const variable = config.token.slice("env:".length);
  const value = env[variable];
  if (value === undefined || value === "") {
    throw new ArborError(
      "missing_api_key",
      `Remote agent "${name}" takes its token from ${variable} (agents.${name}.a2a.token), and ${variable} is not set.`,
    );
  }
  return value;
}

/**
 * Connects to a configured remote agent and gives the model its sub-run calls (see `a2a-model.ts`).
 * The A2A client is loaded only now, so a runtime that never delegates to a remote agent does not pay
 * for it. Throws `remote_agent_unavailable` when its card cannot be read, before anything is recorded.
 */
export async function connectRemoteAgent(
  name: string,
  config: A2AAgentConfig,
  env: RemoteAgentEnv,
  signal: AbortSignal,
): Promise<LanguageModelV4> {
  const token = remoteAgentToken(name, config, env);
  const { connectA2AAgent } = await import("./a2a-model.js");
  return connectA2AAgent({ name, url: config.url, token, signal });
}

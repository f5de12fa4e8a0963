import { type RecordedProviderOptions, type RecordedProviderServer, recordedStream, startRecordedProvider } from "@arbor/testkit";
import { afterEach } from "vitest";
import { parseModelRef } from "../../src/llm/model-ref.js";
import { providerDefinition } from "../../src/llm/providers.js";
import type { RuntimeOptions } from "../../src/runtime/types.js";
import { harness } from "../loop/harness.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

type RecordedReply = RecordedProviderOptions["replies"][number];

/** A recorded-stream provider server for one test, closed after it. */
export async function serve(options: RecordedProviderOptions): Promise<RecordedProviderServer> {
  const server = await startRecordedProvider(options);
  open.push(server);
  return server;
}

/** Closes `server` after the test (for servers started another way). */
export function closeAfter<T extends { close(): Promise<void> }>(server: T): T {
  open.push(server);
  return server;
}

/** A server for one test that answers the requests in turn with the recorded streams at `paths` (under the recordings folder). */
export function serveRecorded(wire: RecordedProviderOptions["wire"], ...paths: string[]): Promise<RecordedProviderServer> {
  return serve({ wire, replies: paths.map((path) => recordedStream(path)) });
}

/**
 * An Anthropic Messages and an OpenAI Responses server answering in turn with the recordings given,
 * and the environment pointing both providers at them: for a session that switches provider.
 */
export async function anthropicAndOpenAI(anthropicPaths: string[], openaiPaths: string[]) {
  const anthropic = await serveRecorded("anthropic-messages", ...anthropicPaths);
  const openai = await serveRecorded("openai-responses", ...openaiPaths);
  const env = {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: openai.baseURL,
  };
  return { anthropic, openai, env };
}

/** The body of the `i`th request a server received, as an object (empty when there is none). */
export const requestBody = (server: { requests: Array<{ body: unknown }> }, i: number) =>
  (server.requests[i]?.body ?? {}) as Record<string, unknown>;

/**
 * A runtime on `model` (`provider/id`) whose requests `replies` (a recording's path, or a reply as
 * given) answer in turn, spoken as `wire`; with the server, and the environment that points the
 * provider's key and base URL variables at it. `options` go to the harness, their `env` on top.
 */
export async function replay(
  model: string,
  wire: RecordedProviderOptions["wire"],
  replies: Array<string | RecordedReply>,
  options: Partial<RuntimeOptions> = {},
) {
  const server = await serve({ wire, replies: replies.map((r) => (typeof r === "string" ? recordedStream(r) : r)) });
  const { env: variables } = providerDefinition(parseModelRef(model).provider);
  const env = {
    [variables.apiKey]: "test-key",
    ...(variables.baseURL ? { [variables.baseURL]: server.baseURL } : {}),
    ...options.env,
  };
  return { server, env, ...(await harness({ ...options, env, model })) };
}

/** `replay` on Anthropic's Messages API and its claude-sonnet-4-5. */
export function anthropicReplay(...paths: string[]) {
  return replay("anthropic/claude-sonnet-4-5", "anthropic-messages", paths);
}

import { type RecordedProviderOptions, type RecordedProviderServer, recordedStream, startRecordedProvider } from "@arbor/testkit";
import { afterEach } from "vitest";
import { harness } from "../loop/harness.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

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

/** The body of the `i`th request a server received, as an object (empty when there is none). */
export const requestBody = (server: { requests: Array<{ body: unknown }> }, i: number) =>
  (server.requests[i]?.body ?? {}) as Record<string, unknown>;

/**
 * A runtime on Anthropic's model whose requests the recorded streams at `paths` answer in turn, with
 * the server (for the requests it received) and the environment that points the runtime at it.
 */
export async function anthropicReplay(...paths: string[]) {
  const server = await serveRecorded("anthropic-messages", ...paths);
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.baseURL };
  return { server, env, ...(await harness({ env, model: "anthropic/claude-sonnet-4-5" })) };
}

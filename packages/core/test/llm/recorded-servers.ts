import { type RecordedProviderOptions, type RecordedProviderServer, startRecordedProvider } from "@arbor/testkit";
import { afterEach } from "vitest";

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

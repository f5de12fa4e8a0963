import type { Runtime, RuntimeOptions, Store } from "@arbor/core";
import { cliRuntime } from "./cli-runtime.js";
import type { Io } from "./io.js";

/**
 * A runtime for a command that changes a session outside a run (a label, a delete, a revert…): the
 * runtime is the one door to a session, so a session another process drives is refused with
 * session_busy naming it, never changed under it. It runs no agent, so it offers no tools unless
 * `options` says otherwise, and it is closed when `work` ends.
 */
export async function withSessionRuntime<T>(
  io: Io,
  store: Store,
  holderName: string,
  work: (runtime: Runtime) => Promise<T>,
  options: Omit<RuntimeOptions, "store" | "holderName"> = {},
): Promise<T> {
  const runtime = cliRuntime(io, holderName, { tools: [], ...options, store });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { Entry } from "../../src/model/entry.js";
import type { RunEvent } from "../../src/model/run-events.js";
import type { Runtime, RuntimeOptions } from "../../src/runtime/types.js";
import { createRuntime } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export function tempDir(prefix = "arbor-loop-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Harness {
  runtime: Runtime;
  store: Store;
  /** The workspace tools act on. */
  cwd: string;
  home: string;
}

/** A runtime over a fresh file store, workspace and ARBOR_HOME; retries wait no real time. */
export async function harness(options: Partial<RuntimeOptions> = {}): Promise<Harness> {
  const root = tempDir();
  const cwd = join(root, "work");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  const store = options.store ?? (await openStore(join(root, "store")));
  const runtime = createRuntime({
    store,
    cwd,
    arborHome: home,
    env: {},
    blobs: new MemoryBlobStore(),
    clock: { now: () => Date.now(), sleep: async () => {} },
    ...options,
  });
  cleanups.push(async () => {
    await runtime.close();
    await store.close();
  });
  return { runtime, store, cwd, home };
}

/** Every event of a run and its result. */
export async function collect(handle: RunHandle): Promise<{ events: RunEvent[]; result: Awaited<RunHandle["result"]> }> {
  const events: RunEvent[] = [];
  for await (const event of handle) events.push(event);
  return { events, result: await handle.result };
}

export function types(events: readonly RunEvent[]): string[] {
  return events.map((e) => e.type);
}

/** The messages on the session's active path as `role: text` lines, for compact assertions. */
export async function transcript(store: Store, sessionId: string): Promise<string[]> {
  const path: Entry[] = await store.getActivePath(sessionId);
  return path.flatMap((e) => {
    if (e.type !== "message") return [];
    const m = e.message;
    const text = m.content
      .map((p) => {
        switch (p.type) {
          case "text":
          case "reasoning":
            return p.text;
          case "tool-call":
            return `call ${p.toolName}`;
          case "tool-result":
            return `result ${p.output.type === "text" || p.output.type === "error-text" ? p.output.value.slice(0, 60) : "json"}`;
          default:
            return p.type;
        }
      })
      .join(" | ");
    return [`${m.role}: ${text}`];
  });
}

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { routedModel, taskOf } from "@arbor/testkit";
import { afterEach } from "vitest";
import { z } from "zod";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { Entry } from "../../src/model/entry.js";
import type { RunEvent, RunEventOf } from "../../src/model/run-events.js";
import type { Runtime, RuntimeOptions } from "../../src/runtime/types.js";
import { createRuntime } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { defineTool } from "../../src/tools/tool.js";

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

/** Every event of a run and its result; `onAsk` is handed each permission ask as it comes, to answer it. */
export async function collect(
  handle: RunHandle,
  onAsk?: (ask: RunEventOf<"permission_request">) => void,
): Promise<{ events: RunEvent[]; result: Awaited<RunHandle["result"]> }> {
  const events: RunEvent[] = [];
  for await (const event of handle) {
    events.push(event);
    if (event.type === "permission_request") onAsk?.(event);
  }
  return { events, result: await handle.result };
}

/**
 * Reads a run's stream up to its first event of `type` (an ask, say, to answer while the run waits);
 * `rest` reads on to the end and resolves with every event, those before included.
 */
export async function firstOf<T extends RunEvent["type"]>(
  handle: RunHandle,
  type: T,
): Promise<{ event: RunEventOf<T>; rest: Promise<RunEvent[]> }> {
  const it = handle[Symbol.asyncIterator]();
  const seen: RunEvent[] = [];
  for (;;) {
    const step = await it.next();
    if (step.done) throw new Error(`the run ended without a ${type}: ${JSON.stringify(types(seen))}`);
    seen.push(step.value);
    if (step.value.type === type) {
      const rest = (async () => {
        for (;;) {
          const next = await it.next();
          if (next.done) return seen;
          seen.push(next.value);
        }
      })();
      return { event: step.value as RunEventOf<T>, rest };
    }
  }
}

export function types(events: readonly RunEvent[]): string[] {
  return events.map((e) => e.type);
}

/**
 * The event types of a run that calls one tool between two model calls: the first streams
 * `callTokens` tokens, the answer `answerTokens` (0 for a test that filters tokens out).
 */
export function toolTurnTypes(callTokens: number, answerTokens: number): string[] {
  const modelCall = (tokens: number) => ["llm_start", ...Array<string>(tokens).fill("token"), "llm_end"];
  return [...modelCall(callTokens), "tool_start", "tool_end", ...modelCall(answerTokens), "done"];
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

/** Re-exported: the loop tests take their held tool from here, as they did before it was shared. */
export { gateTool } from "../helpers/gate-tool.js";

/** The main agent answers prompts that start with "main:"; each branch answers its own task. */
export function branchModels(main: LanguageModelV4, branches: Record<string, LanguageModelV4>): LanguageModelV4 {
  return routedModel({
    route: (prompt) => {
      const task = taskOf(prompt);
      return task.startsWith("main:") ? "main" : (Object.keys(branches).find((b) => task.endsWith(b)) ?? "unknown");
    },
    models: { main, ...branches },
  });
}

/** A tool that prints `size` characters of varied words: output of a chosen size, for the context-window tests. */
export const printTool = defineTool({
  name: "print",
  description: "Prints text.",
  input: z.object({ size: z.number() }),
  execute: async ({ size }) => ({
    output: Array.from({ length: Math.ceil(size / 6) }, (_, i) => `w${(i * 7919) % 1000}`)
      .join(" ")
      .slice(0, size),
  }),
});

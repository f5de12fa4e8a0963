// Shared by the loop and stream sections: a runtime over a scripted model and one trivial tool, and a
// reader that consumes a run's events the way a client does.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { z } from "zod";
import { runClock } from "../lib/stats.mjs";

/**
 * The built @arbor/core with the entries a run needs, for a process of its own; ARBOR_CORE=<dir of a built
 * @arbor/core> loads another build (main's, say) to compare in the same conditions.
 */
export async function loadCore() {
  const root = process.env.ARBOR_CORE;
  // Another build is loaded in the form this tree's is: its bundle when it has one (what `@arbor/core`
  // resolves to), else tsc's output.
  const bundled = root !== undefined && existsSync(join(root, "dist-bundle", "index.js"));
  const entry = (sub) => {
    if (!root) return `@arbor/core${sub ? `/${sub}` : ""}`;
    const file = bundled
      ? join(root, "dist-bundle", `${sub || "index"}.js`)
      : join(root, "dist", sub ? `entries/${sub}.js` : "index.js");
    return pathToFileURL(file).href;
  };
  return Object.assign({}, ...(await Promise.all(["", "session", "store", "tools"].map((m) => import(entry(m))))));
}

/**
 * Two builds for a paired comparison in one process: A is the build at ARBOR_CORE_A, B this tree's.
 * Returns `[name, core]` pairs, A first.
 */
export async function loadBuildsAB() {
  if (!process.env.ARBOR_CORE_A) throw new Error("Set ARBOR_CORE_A to the directory of the build to compare against.");
  process.env.ARBOR_CORE = process.env.ARBOR_CORE_A;
  const coreA = await loadCore();
  delete process.env.ARBOR_CORE;
  return [
    ["A", coreA],
    ["B", await loadCore()],
  ];
}

/** Backends a loop figure is taken on. `spec(tmp)` is what `openStore` gets; null means the stub below. */
export const LOOP_BACKENDS = [
  { label: "file (process)", spec: (tmp) => ({ kind: "file", dir: join(tmp, "loop-file"), durability: "process" }) },
  { label: "sqlite (process)", spec: (tmp) => ({ kind: "sqlite", file: join(tmp, "loop.db"), durability: "process" }) },
  { label: "none (in-bench stub)", spec: () => null },
];

/**
 * A store that keeps nothing but the path it hands back: no validation, no serialization, no I/O. Only the
 * methods a run calls are here; it is the "persisting nothing" baseline, so store cost = backend − stub.
 * Its event log numbers what it is given and keeps nothing: without it every append would throw, and
 * the baseline would measure the runtime's handling of a failing store instead.
 */
export function nullStore(core) {
  const sessions = new Map();
  const now = () => new Date().toISOString();
  const append = (sessionId, fields) => {
    const s = sessions.get(sessionId);
    const entry = { id: randomUUID(), parentId: s.path.at(-1)?.id ?? null, timestamp: now(), ...fields };
    s.path.push(entry);
    return entry;
  };
  return {
    async createSession(init = {}) {
      const meta = { ...init, id: init.id ?? randomUUID(), createdAt: now(), updatedAt: now() };
      sessions.set(meta.id, { meta, path: [], events: 0 });
      return meta;
    },
    async getSession(id) {
      return sessions.get(id)?.meta;
    },
    async updateSession(id, patch) {
      const s = sessions.get(id);
      s.meta = { ...s.meta, ...patch };
      return s.meta;
    },
    async getActivePath(id) {
      return [...(sessions.get(id)?.path ?? [])];
    },
    async appendMessage(sessionId, message) {
      return append(sessionId, { type: "message", message });
    },
    async appendEntry(sessionId, entry) {
      return append(sessionId, entry);
    },
    // A step's assistant message and its first call's start record go in one append.
    async appendEntries(sessionId, entries) {
      return entries.map((entry) => append(sessionId, entry));
    },
    // One driver per session is the store's promise; the stub has one process and one reader, so its
    // lease is granted at once and never lost.
    async acquireLease(sessionId, purpose) {
      const holder = { pid: process.pid, host: "bench", purpose, since: now(), token: randomUUID() };
      return { sessionId, holder, lost: new AbortController().signal, release: async () => {} };
    },
    async leaseHolder() {
      return undefined;
    },
    // The run's event log: numbered as a store numbers it, nothing kept.
    async appendEvents(sessionId, events) {
      const s = sessions.get(sessionId);
      if (!s) throw new core.ArborError("session_not_found", `No session ${sessionId}.`);
      const timestamp = now();
      return events.map((e) => ({ id: ++s.events, type: e.type, timestamp: e.timestamp ?? timestamp, data: e.data }));
    },
    async lastEventId(sessionId) {
      return sessions.get(sessionId)?.events ?? 0;
    },
    // Nobody steers a benchmark run: the inbox is always empty.
    async readInbox(_sessionId, after) {
      return { messages: [], cursor: after ?? "0" };
    },
    async close() {},
  };
}

export async function openBackend(core, backend, tmp) {
  const spec = backend.spec(tmp);
  return spec === null ? nullStore(core) : core.openStore(spec);
}

/**
 * Payload sizes of a realistic step, the same for every runtime compared: a user message of 200
 * characters; an assistant step of 450 characters of text plus one tool call with ~150 characters of
 * JSON arguments; a tool result of 2,000 characters.
 */
export const PAYLOAD = { user: 200, assistantText: 450, toolArgs: 150, toolResult: 2000 };

/** Readable filler of exactly `n` characters, varied by `seed` so no two payloads are the same string. */
export function prose(n, seed = 0) {
  const words = ["the", "session", "reads", "a", "file", "and", "checks", "each", "line", "for", "errors", "then", "writes"];
  let out = `${seed}:`;
  for (let i = seed; out.length < n; i++) out += ` ${words[i % words.length]}`;
  return out.slice(0, n);
}

export const USER_PROMPT = prose(PAYLOAD.user, 7);

/** The tool every step calls, as any runtime compared defines it: its input schema and a result of realistic size. */
export const NOOP_TOOL = {
  name: "noop",
  description: "Reads nothing and answers with a fixed page of text.",
  input: z.object({ n: z.number(), path: z.string().optional(), query: z.string().optional() }),
  result: prose(PAYLOAD.toolResult, 3),
};

/** The tool every step calls: validates its input and answers with a tool result of realistic size. */
export function trivialTool(core) {
  const { name, description, input, result } = NOOP_TOOL;
  return core.defineTool({ name, description, input, execute: async () => ({ output: result }) });
}

/** Tool arguments of ~150 characters of JSON, different for every step. */
export function toolArgs(i) {
  const args = { n: i, path: `src/modules/feature-${i}/handler.ts`, query: "" };
  args.query = prose(Math.max(1, PAYLOAD.toolArgs - JSON.stringify(args).length), i);
  return args;
}

/**
 * `steps` model calls: each but the last says 450 characters and calls the tool once (a different input
 * each time, so the doom-loop guard never sees a repeat), the last answers with text. Usage is reported as
 * a provider would.
 */
export function toolLoopScript(steps) {
  const script = [];
  for (let i = 0; i < steps - 1; i++)
    script.push([
      text(prose(PAYLOAD.assistantText, i)),
      toolCall("noop", toolArgs(i)),
      usage({ inputTokens: 100 + i, outputTokens: 12 }),
    ]);
  script.push([text(prose(PAYLOAD.assistantText, steps)), usage({ inputTokens: 100 + steps, outputTokens: 3 })]);
  return script;
}

/** One text step made of `deltas` (an array: one stream delta per element). */
export function textScript(deltas) {
  return [[text(deltas), usage({ inputTokens: 10, outputTokens: deltas.length })]];
}

/** A runtime over `store` whose model plays `script`, offering only the trivial tool. */
export function runtimeFor(core, { store, script, tmp }) {
  const cwd = join(tmp, "workspace");
  const arborHome = join(tmp, "arbor-home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(arborHome, { recursive: true });
  return core.createRuntime({
    store,
    model: scriptedModel(script, { record: false }),
    tools: [trivialTool(core)],
    cwd,
    arborHome,
    env: {},
    blobs: new core.MemoryBlobStore(),
  });
}

/**
 * Starts a run and consumes its events. Returns the wall time from `run()` to the settled result (ms), the
 * process CPU time over the same span (all threads: GC helpers and libuv's pool count too), the result, counts by event type, and when asked the reader's time at each `llm_start` (ms since `run()`) and
 * the concatenated `token` contents.
 */
export async function consume(runtime, input, { stamps = false, tokens = false } = {}) {
  const starts = [];
  const texts = [];
  const counts = {};
  const clock = runClock();
  const t0 = performance.now();
  const handle = runtime.runs.run(input);
  for await (const event of handle) {
    counts[event.type] = (counts[event.type] ?? 0) + 1;
    if (stamps && event.type === "llm_start") starts.push(performance.now() - t0);
    else if (tokens && event.type === "token") texts.push(event.content);
  }
  const result = await handle.result;
  const { ms, cpuMs, mainCpuMs } = clock();
  if (result.status !== "done") {
    throw new Error(`run ended ${result.status}${result.error ? ` (${result.error.code}: ${result.error.message})` : ""}`);
  }
  return {
    ms,
    cpuMs,
    mainCpuMs,
    result,
    counts,
    starts,
    text: texts.join(""),
    sessionId: handle.sessionId,
  };
}

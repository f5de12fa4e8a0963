import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Entry, RunEvent, Snapshot } from "@arbor/core";
import { type FakeOpenAIServer, type Script, startFakeOpenAI } from "@arbor/testkit";
import { expect } from "vitest";
import { type RunningCli, servedUrl, startArbor } from "./cli.js";
import { runArborInProcess } from "./in-process.js";
import { createTestDatabase } from "./postgres.js";

/**
 * What the fault tests share: the processes a test starts (ended after it, whatever happened), the
 * fake provider, the stores they run on and the checks that tell a usable session from a broken one.
 */

/** A store to run a fault case on: `store` is the --store value (none for the default file store). */
export interface StoreCase {
  store: string | undefined;
  drop(): Promise<void>;
}

/** The file, SQLite and PostgreSQL stores, each made fresh under `dir()` (or as a new database). */
export function storeCases(dir: () => string): Array<[string, () => Promise<StoreCase>]> {
  return [
    ["file", async () => ({ store: undefined, drop: async () => {} })],
    [
      "sqlite",
      async () => ({ store: `sqlite:${join(dir(), `store-${Math.random().toString(36).slice(2)}.db`)}`, drop: async () => {} }),
    ],
    [
      "postgres",
      async () => {
        const db = await createTestDatabase();
        return { store: db.url, drop: db.drop };
      },
    ],
  ];
}

/** The processes and the fake provider of one test file; `cleanup` runs after each test. */
export class FaultRig {
  private readonly children: RunningCli[] = [];
  /** A tool's process outlives a kill -9 of its run (that is what kill -9 means); the test ends it. */
  readonly strayPids: number[] = [];
  fake: FakeOpenAIServer | undefined;

  constructor(readonly workspace: () => string) {}

  async fakeServer(script: Script): Promise<string> {
    await this.closeFake();
    this.fake = await startFakeOpenAI({ script });
    return this.fake.baseURL;
  }

  async closeFake(): Promise<void> {
    await this.fake?.close();
    this.fake = undefined;
  }

  /** The provider requests the fake received so far. */
  chatRequests(): unknown[] {
    return (this.fake?.requests ?? []).filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body);
  }

  modelArgs(baseURL: string, cwd = this.workspace()): string[] {
    return ["--model", "openai-compatible/fake", "--base-url", baseURL, "--cwd", cwd];
  }

  start(args: string[], home: string, store?: string, host?: string, pidNamespace?: boolean): RunningCli {
    const c = startArbor(store ? [...args, "--store", store, "--create"] : args, {
      home,
      ...(host ? { host } : {}),
      ...(pidNamespace ? { pidNamespace } : {}),
    });
    this.children.push(c);
    return c;
  }

  /** `arbor serve` on the fake provider; `pidNamespace` runs it as pid 1 of a namespace of its own. */
  async serve(baseURL: string, home: string, store?: string, pidNamespace?: boolean): Promise<{ url: string; cli: RunningCli }> {
    const cli = this.start(["serve", "--port", "0", "--json", ...this.modelArgs(baseURL)], home, store, undefined, pidNamespace);
    return { url: await servedUrl(cli), cli };
  }

  async cleanup(): Promise<void> {
    for (const c of this.children.splice(0)) {
      if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
      await c.result.catch(() => undefined);
    }
    for (const pid of this.strayPids.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.closeFake();
  }
}

export function sseEvents(body: string): RunEvent[] {
  return body
    .split("\n\n")
    .filter((b) => b.trim() !== "")
    .map((b) => JSON.parse((b.split("\n").find((l) => l.startsWith("data: ")) as string).slice(6)) as RunEvent);
}

/** The events `arbor run --json` printed, up to the last whole line (a kill may cut one short). */
export function jsonLines(stdout: string): RunEvent[] {
  const lines = stdout.split("\n");
  lines.pop();
  return lines.filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as RunEvent);
}

export async function chat(url: string, message: string, sessionId?: string): Promise<{ status: number; events: RunEvent[] }> {
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // A busy session answers 409 rather than being steered: these callers start runs and retry.
    body: JSON.stringify({ message, ...(sessionId ? { session_id: sessionId, busy: "reject" } : {}) }),
  });
  const body = await res.text();
  return { status: res.status, events: res.status === 200 ? sseEvents(body) : [] };
}

/** Starts a chat and returns once the server streamed its first token; the response stays open. */
export function chatUntilToken(url: string, message: string, sessionId: string): Promise<void> {
  return chatUntil(url, message, sessionId, "token");
}

/** Starts a chat and returns once the server streamed its first event of `type`; the response stays open. */
export async function chatUntil(url: string, message: string, sessionId: string, type: RunEvent["type"]): Promise<void> {
  const res = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, session_id: sessionId, busy: "reject" }),
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let seen = "";
  while (!seen.includes(`"type":"${type}"`)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a ${type} event: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  void reader.cancel().catch(() => undefined);
}

const storeArgs = (store?: string) => (store ? ["--store", store, "--create"] : []);

export async function show(
  id: string,
  home: string,
  store?: string,
): Promise<{ code: number | null; snap?: Snapshot; stderr: string }> {
  // In this process: only the output and exit code are read (see runArborInProcess).
  const r = await runArborInProcess(["sessions", "show", id, "--json", ...storeArgs(store)], { home });
  return r.code === 0
    ? { code: 0, snap: JSON.parse(r.stdout) as Snapshot, stderr: r.stderr }
    : { code: r.code, stderr: r.stderr };
}

export function userTexts(snap: Snapshot): string[] {
  return snap.entries
    .filter((e): e is Extract<Entry, { type: "message" }> => e.type === "message" && e.message.role === "user")
    .map((e) => (e.message.content[0] as { text: string }).text);
}

/** An event as both a process's stdout and the event log carry it, without what differs between them. */
function printedKey(type: string, data: Record<string, unknown>): string {
  return `${type}|${String(data.call_id ?? "")}|${typeof data.content === "string" ? data.content : ""}`;
}

/**
 * Checks what `arbor run --json` printed against the session's event log (its records, as the
 * store lists them): each printed event of a type the log keeps must be there, in the printed order.
 * What was printed was acknowledged to its reader; a kill right after must not lose it from the log.
 */
export function printedVersusLog(
  printed: readonly RunEvent[],
  records: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
): { lost: string[]; outOfOrder: string[] } {
  const run = records.filter((r) => r.type.startsWith("run."));
  const keys = run.map((r) => printedKey(r.type.slice(4), r.data));
  const logged = new Set(run.map((r) => r.type.slice(4)));
  const lost: string[] = [];
  const outOfOrder: string[] = [];
  let at = 0;
  for (const e of printed) {
    if (!logged.has(e.type)) continue;
    const key = printedKey(e.type, e as unknown as Record<string, unknown>);
    const found = keys.indexOf(key, at);
    if (found >= 0) at = found + 1;
    else (keys.includes(key) ? outOfOrder : lost).push(key.slice(0, 80));
  }
  return { lost, outOfOrder };
}

/** Every tool call in a provider request is followed by exactly one result for it. */
export function unpairedCalls(body: unknown): number {
  const messages = (body as { messages: Array<{ role: string; tool_calls?: { id: string }[]; tool_call_id?: string }> }).messages;
  const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
  const results = messages.flatMap((m) => (m.role === "tool" && m.tool_call_id ? [m.tool_call_id] : []));
  return calls.filter((id) => results.filter((r) => r === id).length !== 1).length;
}

/**
 * A reproducible random source for the kill trials: the seed comes from `seedVariable` when set
 * (to replay a failing run) and is otherwise drawn; the tests print it.
 */
export function seededRandom(seedVariable: string): { seed: number; random(): number; between(lo: number, hi: number): number } {
  const seed = Number(process.env[seedVariable] ?? Math.floor(Math.random() * 2 ** 31));
  // mulberry32: small, fast and good enough to spread kill points.
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, random, between: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)) };
}

/**
 * A named pipe in `dir` that a tool's command blocks reading (`read line < <path>`) until the test
 * sends it a line. In the workspace: a tool's command runs in the sandbox, which sees the workspace,
 * not the test's other folders.
 */
export function holdingPipe(dir: string): { path: string; send(line: string): Promise<void> } {
  const path = join(dir, "hold");
  execFileSync("mkfifo", [path]);
  return { path, send: (line) => writeFile(path, `${line}\n`) };
}

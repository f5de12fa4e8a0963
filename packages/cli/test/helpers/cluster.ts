import type { RunEvent, Store } from "@arbor/core";
import type { StepContext } from "@arbor/testkit";
import type { RunningCli } from "./cli.js";
import { FaultRig } from "./fault.js";
import { createTestDatabase } from "./postgres.js";

/**
 * What the cluster tests share: instances of `arbor serve --cluster` that can be killed and
 * restarted, their stderr lines with arrival times, and SSE clients that follow a session's run
 * across instances by reconnecting with the last id they had.
 */

export interface Instance {
  name: string;
  url: string;
  cli: RunningCli;
  /** stderr lines as they arrived, with the time (performance.now()). */
  lines: Array<{ at: number; line: string }>;
  up: boolean;
}

export async function startInstance(
  rig: FaultRig,
  name: string,
  args: { baseURL: string; home: string; store: string; takeoverMs: number | undefined; cwd: string; host?: string },
): Promise<Instance> {
  const cli = rig.start(
    [
      "serve",
      "--cluster",
      // Undefined: the instance runs with the default takeover time.
      ...(args.takeoverMs === undefined ? [] : ["--takeover-ms", String(args.takeoverMs)]),
      "--port",
      "0",
      "--json",
      ...rig.modelArgs(args.baseURL, args.cwd),
    ],
    args.home,
    args.store,
    args.host,
  );
  const lines: Instance["lines"] = [];
  let partial = "";
  cli.child.stderr.on("data", (b: Buffer) => {
    const at = performance.now();
    const parts = (partial + b.toString("utf8")).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) lines.push({ at, line });
  });
  await cli.waitForStdout(/\n$/).catch((err: Error) => {
    // What the instance said on its way out is the reason it did not start.
    throw new Error(`${err.message}; stderr: ${lines.map((l) => l.line).join("\n")}${partial}`);
  });
  const url = (JSON.parse(cli.stdout()) as { url?: string }).url;
  if (url === undefined)
    throw new Error(`${name} did not start: ${cli.stdout()}; stderr: ${lines.map((l) => l.line).join("\n")}${partial}`);
  return { name, url, cli, lines, up: true };
}

/**
 * Instances named `names`, started at once: each start is mostly waiting (Node loading the CLI, the
 * database answering), and a chat is taken by whichever instance is free, so their order means nothing.
 */
export function startInstances(
  rig: FaultRig,
  names: readonly string[],
  args: Parameters<typeof startInstance>[2],
): Promise<Instance[]> {
  return Promise.all(names.map((name) => startInstance(rig, name, args)));
}

/** When a stderr line of the instance containing `needle` arrived (performance.now()), waiting up to `ms`. */
export function lineArrival(instance: Instance, needle: string, ms: number): Promise<number> {
  const stderr = instance.cli.child.stderr;
  return new Promise((resolve, reject) => {
    const check = () => {
      const hit = instance.lines.find((l) => l.line.includes(needle));
      if (!hit) return;
      done();
      resolve(hit.at);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new Error(`${instance.name} wrote no "${needle}" within ${ms} ms:\n${instance.lines.map((l) => l.line).join("\n")}`),
      );
    }, ms);
    // Registered after startInstance's own listener, so the line is in `lines` when this runs.
    const done = () => {
      clearTimeout(timer);
      stderr.off("data", check);
    };
    stderr.on("data", check);
    check();
  });
}

/**
 * The instance whose process drives the session's run (holds its lease), once one does: a chat is
 * queued, so whichever instance takes it drives it, not necessarily the one it was posted to.
 */
export async function driverOf(store: Store, sessionId: string, instances: readonly Instance[]): Promise<Instance> {
  for (;;) {
    const holder = await store.leaseHolder(sessionId);
    const inst = holder && instances.find((i) => i.cli.child.pid === holder.pid);
    if (inst) return inst;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A received event with its log id and when it arrived. */
export interface Received {
  id: number;
  event: RunEvent;
  at: number;
  /** The instance and connection attempt it came through (follow only). */
  via?: string;
}

/** Parses SSE messages out of a growing buffer; returns the rest. */
function drain(buffer: string, into: Received[]): string {
  let rest = buffer;
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const idLine = block.split("\n").find((l) => l.startsWith("id: "));
    const dataLine = block.split("\n").find((l) => l.startsWith("data: "));
    if (!idLine || !dataLine) continue;
    into.push({ id: Number(idLine.slice(4)), event: JSON.parse(dataLine.slice(6)) as RunEvent, at: performance.now() });
  }
  return rest;
}

/**
 * Follows a session's run from its first event to its `done` or `error`, on whichever instance
 * `pick` gives (never `avoid`'s when another is up), reconnecting after the last id it had when an
 * instance dies. Resolves with every event received, in arrival order.
 */
export async function follow(
  sessionId: string,
  pick: (attempt: number) => Instance,
  deadline: number,
): Promise<{ events: Received[]; reconnects: number }> {
  const events: Received[] = [];
  let reconnects = -1;
  for (let attempt = 0; performance.now() < deadline; attempt++) {
    reconnects++;
    const inst = pick(attempt);
    const last = events.at(-1)?.id ?? 0;
    try {
      const res = await fetch(`${inst.url}/api/sessions/${sessionId}/stream?last_event_id=${last}`);
      if (res.status === 204) return { events, reconnects };
      if (res.status !== 200) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const before = events.length;
        buffer = drain(buffer + decoder.decode(value, { stream: true }), events);
        for (let i = before; i < events.length; i++) (events[i] as Received).via = `${inst.name}#${attempt}`;
        const t = events.at(-1)?.event.type;
        if (t === "done" || t === "error") {
          void reader.cancel().catch(() => undefined);
          return { events, reconnects };
        }
      }
    } catch {
      // The instance died under the stream (or before it answered): go on with another.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { events, reconnects };
}

/**
 * Posts a chat to an instance and returns its session id, named by the response header once the
 * chat is recorded and queued (its run may start later, anywhere); the stream is dropped.
 */
export async function postChat(url: string, message: string): Promise<string> {
  const res = await postJson(`${url}/api/chat`, { message });
  if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
  void res.body?.cancel().catch(() => undefined);
  const sessionId = res.headers.get("x-arbor-session-id");
  if (!sessionId) throw new Error("the chat's answer named no session");
  return sessionId;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** What a scripted model reads of a request: whether it offers tools (a title has none) and the messages. */
export const modelBody = (call: StepContext) =>
  (call.source === "http" ? call.body : {}) as { tools?: unknown[]; messages?: unknown[] };

/** How many assistant turns the request's conversation already has. */
export const assistantTurns = (call: StepContext) =>
  ((modelBody(call).messages ?? []) as Array<{ role: string }>).filter((m) => m.role === "assistant").length;

/**
 * Gives `body` a PostgreSQL database of its own and a fault rig over `workspace`; ends the rig's
 * processes and drops the database after it, however it ends.
 */
export async function withClusterRig<T>(workspace: string, body: (db: { url: string }, rig: FaultRig) => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  const rig = new FaultRig(() => workspace);
  try {
    return await body(db, rig);
  } finally {
    await rig.cleanup();
    await db.drop();
  }
}

/** A JSON POST to an instance's route. */
export function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** useChat's request for chat `id` with `messages`, sent to an instance. */
export function postUiChat(url: string, id: string, messages: unknown[]): Promise<Response> {
  return postJson(`${url}/api/ui/chat`, { id, messages });
}

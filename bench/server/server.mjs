// Section "server": what the HTTP layer adds (issue 6 targets): token latency from the model's delta to an SSE
// client on loopback, 50 concurrent chats on the zero-latency scripted model (runs/s, time to first token), and
// one session watched by 100 WebSocket clients (deliveries/s), and one watcher replaying a long event log (H4).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "@arbor/server";
import { scriptedModel, text } from "@arbor/testkit";
import WebSocket from "ws";
import { note, num, section, table } from "../lib/format.mjs";
import { postSse } from "../lib/sse.mjs";
import { summarize } from "../lib/stats.mjs";
import { watchReplay } from "./watch-replay.mjs";

const LATENCY_P50_MS = 1;
const LATENCY_P99_MS = 5;

/** A model whose deltas carry the time they were emitted, one every `gapMs`, so a reader can measure their latency. */
function pacedModel(deltas, gapMs) {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    specificationVersion: "v4",
    provider: "bench",
    modelId: "paced",
    supportedUrls: {},
    async doGenerate() {
      throw new Error("the paced model only streams");
    },
    async doStream() {
      let i = -1;
      const stream = new ReadableStream({
        async pull(controller) {
          if (i === -1) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t" });
          } else if (i < deltas) {
            await sleep(gapMs);
            controller.enqueue({ type: "text-delta", id: "t", delta: `${performance.now()};` });
          } else {
            controller.enqueue({ type: "text-end", id: "t" });
            controller.enqueue({
              type: "finish",
              finishReason: { unified: "stop", raw: "stop" },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: deltas, text: deltas, reasoning: 0 },
              },
            });
            controller.close();
          }
          i++;
        },
      });
      return { stream };
    },
  };
}

async function serverFor(core, tmp, name, model) {
  const root = join(tmp, name);
  mkdirSync(join(root, "work"), { recursive: true });
  const store = await core.openStore({ kind: "file", dir: join(root, "store"), durability: "process" });
  const runtime = core.createRuntime({
    store,
    model,
    env: {},
    cwd: join(root, "work"),
    arborHome: root,
    blobs: new core.MemoryBlobStore(),
    tools: [],
  });
  const listening = await createServer({ runtime }).listen({ host: "127.0.0.1", port: 0 });
  return {
    url: listening.url,
    runtime,
    async close() {
      await listening.close();
      await runtime.close();
      await store.close();
    },
  };
}

/** Starts a chat and reads its SSE stream to the end, calling `onEvent(event, receivedAt)` per message. */
const chat = (url, message, onEvent) => postSse(`${url}/api/chat`, { message }, onEvent);

async function latency(core, tmp, quick) {
  const deltas = quick ? 500 : 2000;
  const gapMs = 1;
  section(
    `H1. Token latency: model delta → SSE client on loopback (${deltas.toLocaleString("en-US")} deltas, one per ≥${gapMs} ms)`,
  );
  note("Each delta carries performance.now() at emission; the reader (same process, node:http) subtracts it from");
  note("the time its chunk arrived. 'direct' reads the same run from runtime.runs.run() with no HTTP: the loop's own share.");
  const direct = [];
  {
    const s = await serverFor(core, tmp, "latency-direct", pacedModel(deltas, gapMs));
    const handle = s.runtime.runs.run({ prompt: "stream" });
    for await (const event of handle) {
      if (event.type === "token") direct.push(performance.now() - Number.parseFloat(event.content));
    }
    await s.close();
  }
  const sse = [];
  {
    const s = await serverFor(core, tmp, "latency-sse", pacedModel(deltas, gapMs));
    await chat(s.url, "stream", (event, at) => {
      if (event.type === "token") sse.push(at - Number.parseFloat(event.content));
    });
    await s.close();
  }
  const d = summarize(direct);
  const h = summarize(sse);
  table(
    ["<path", "tokens", "p50 ms", "p99 ms", "max ms", "<target"],
    [
      ["direct (runtime.run)", d.n, num(d.p50), num(d.p99), num(d.max), ""],
      ["SSE over loopback", h.n, num(h.p50), num(h.p99), num(h.max), `p50 ≤ ${LATENCY_P50_MS}, p99 ≤ ${LATENCY_P99_MS} ms`],
      ["added by the server", "", num(h.p50 - d.p50), num(h.p99 - d.p99), "", ""],
    ],
  );
}

/** `rounds` rounds (after a warm-up) of `n` chats started at once; each chat resolves with its time to first token. */
async function measureRounds(n, rounds, startChat) {
  const walls = [];
  const firstTokens = [];
  for (let round = 0; round <= rounds; round++) {
    const t0 = performance.now();
    const ttft = await Promise.all(Array.from({ length: n }, (_, i) => startChat(i)));
    if (round === 0) continue; // warm-up
    walls.push(performance.now() - t0);
    firstTokens.push(...ttft);
  }
  return { wall: summarize(walls), ttft: summarize(firstTokens) };
}

async function concurrency(core, tmp, quick) {
  const n = 50;
  const rounds = quick ? 3 : 10;
  section(`H2. ${n} concurrent chats on the zero-latency scripted model (${rounds} rounds after a warm-up)`);
  note("Each chat: a new session, one step of 8 text deltas, file store; all 50 started at once per round and read to");
  note("done. Over SSE: POSTed and read with node:http; direct: runtime.runs.run() with no HTTP, the runtime's own share.");
  note("Time to first token is from the start of the chat to the arrival of its first token event.");
  const script = () =>
    Array.from({ length: n * (rounds + 1) }, () => [text("a reply in eight small deltas here", { chunks: 8 })]);
  const direct = await serverFor(core, tmp, "concurrency-direct", scriptedModel(script(), { record: false }));
  let directFigures;
  try {
    directFigures = await measureRounds(n, rounds, async (i) => {
      const start = performance.now();
      let first;
      let last;
      for await (const event of direct.runtime.runs.run({ prompt: `task ${i}` })) {
        if (event.type === "token" && first === undefined) first = performance.now() - start;
        last = event.type;
      }
      if (last !== "done") throw new Error(`run ${i} ended with ${last}`);
      return first;
    });
  } finally {
    await direct.close();
  }
  const s = await serverFor(core, tmp, "concurrency-sse", scriptedModel(script(), { record: false }));
  let sseFigures;
  try {
    sseFigures = await measureRounds(n, rounds, async (i) => {
      const start = performance.now();
      let first;
      let last;
      await chat(s.url, `task ${i}`, (event, at) => {
        if (event.type === "token" && first === undefined) first = at - start;
        last = event.type;
      });
      if (last !== "done") throw new Error(`chat ${i} ended with ${last}`);
      return first;
    });
  } finally {
    await s.close();
  }
  const row = (label, f) => [
    label,
    num((n * 1000) / f.wall.p50),
    num(f.wall.p50),
    num(f.wall.p99),
    num(f.ttft.p50),
    num(f.ttft.p99),
  ];
  table(
    ["<path", "runs/s", "wall p50 ms", "wall p99 ms", "TTFT p50 ms", "TTFT p99 ms"],
    [row("direct (runtime.run)", directFigures), row("SSE over loopback", sseFigures)],
  );
}

async function watchers(core, tmp, quick) {
  const clients = 100;
  const events = quick ? 500 : 2000;
  section(
    `H3. One session watched by ${clients} WebSocket clients: ${events.toLocaleString("en-US")} events published back to back`,
  );
  note("Each event is logged in the session's event log (file store) and sent to every watcher; the clock runs from the");
  note("first publish until every client has every event. Clients are `ws` sockets in the same process.");
  const root = join(tmp, "watch");
  mkdirSync(root, { recursive: true });
  const store = await core.openStore({ kind: "file", dir: join(root, "store"), durability: "process" });
  const hub = new core.WatchHub(store);
  const runtime = core.createRuntime({
    store,
    watch: hub,
    env: {},
    cwd: root,
    arborHome: root,
    blobs: new core.MemoryBlobStore(),
    tools: [],
  });
  const listening = await createServer({ runtime }).listen({ host: "127.0.0.1", port: 0 });
  try {
    const { id } = await store.createSession();
    const counts = new Array(clients).fill(0);
    let complete = 0;
    let allDone;
    const finished = new Promise((resolve) => {
      allDone = resolve;
    });
    const sockets = await Promise.all(
      Array.from(
        { length: clients },
        (_, i) =>
          new Promise((resolve, reject) => {
            const ws = new WebSocket(`${listening.url.replace("http", "ws")}/api/traces/${id}/watch`);
            let expected = 1;
            ws.on("message", (data) => {
              const m = JSON.parse(String(data));
              if (m.event === "connected") return resolve(ws);
              if (m.event_id !== expected) reject(new Error(`client ${i} got ${m.event_id}, expected ${expected}`));
              expected++;
              counts[i]++;
              if (counts[i] === events && ++complete === clients) allDone();
            });
            ws.on("error", reject);
          }),
      ),
    );
    const stats = { total_messages: 0, total_tokens: 0, total_cost: 0 };
    const t0 = performance.now();
    for (let i = 0; i < events; i++) void hub.publish(id, { event: "trace_completed", status: "done", stats });
    await finished;
    const ms = performance.now() - t0;
    for (const ws of sockets) ws.close();
    const deliveries = clients * events;
    table(
      ["<measure", "value", "<target"],
      [
        ["deliveries", deliveries.toLocaleString("en-US"), ""],
        ["time (ms)", num(ms), ""],
        ["deliveries/s", Math.round((deliveries * 1000) / ms).toLocaleString("en-US"), "≥ 20,000"],
        ["events logged/s", Math.round((events * 1000) / ms).toLocaleString("en-US"), ""],
        ["every client got every event once, in order", counts.every((c) => c === events) ? "yes" : "NO", ""],
      ],
    );
  } finally {
    await listening.close();
    await runtime.close();
    await hub.flush();
    await store.close();
  }
}

export async function run({ core, tmp, quick }) {
  await latency(core, tmp, quick);
  await concurrency(core, tmp, quick);
  await watchers(core, tmp, quick);
  await watchReplay(core, tmp, quick);
}

// Section "stream": what 50,000 streamed text deltas add to a run, through the whole runtime and its event log.
import { join } from "node:path";
import { scriptedModel } from "@arbor/testkit";
import { streamText } from "ai";
import { note, num, ratio, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { consume, runtimeFor, textScript } from "./harness.mjs";

const DELTAS = 50_000;
/** Per delta, through the whole runtime with the run's event log recording (issue target). */
const TARGET_US = 3;

/** Short word-like deltas, as a provider streams them (a few characters each). */
function deltaArray(n) {
  return Array.from({ length: n }, (_, i) => (i % 13 === 12 ? `w${i}.\n` : `w${i} `));
}

export async function run({ core, tmp, quick }) {
  const repeats = quick ? 3 : 7;
  section(`S1. Streaming: one step of ${DELTAS.toLocaleString("en-US")} text deltas against one step of 1 delta`);
  note("The whole runtime (scripted model → loop → event channel → reader), file store, the assistant message");
  note("persisted and every event written to the run's event log (the runtime is closed inside the timing, so");
  note(`the log's last appends count). Runs alternate; median of ${repeats} each after a warm-up pair.`);
  const many = deltaArray(DELTAS);
  const one = [many.join("")];
  const opened = await core.openStore({ kind: "file", dir: join(tmp, "stream-file"), durability: "process" });
  // Counts the event log's appends: batching shows as few appends for many deltas.
  let appends = 0;
  const store = new Proxy(opened, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "appendEvents") return typeof value === "function" ? value.bind(target) : value;
      return (...args) => {
        appends++;
        return value.apply(target, args);
      };
    },
  });
  const appendsPerRun = [];
  try {
    const times = { many: [], one: [], sdkMany: [], sdkOne: [] };
    const cpus = { many: [], one: [], sdkMany: [], sdkOne: [] };
    let check = "";
    let sdkCheck = "";
    for (let i = 0; i <= repeats; i++) {
      for (const [key, deltas] of [
        ["one", one],
        ["many", many],
      ]) {
        const appends0 = appends;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const runtime = runtimeFor(core, { store, script: textScript(deltas), tmp });
        const r = await consume(runtime, { prompt: "Say a lot." }, { tokens: key === "many" });
        await runtime.close();
        const cpu = process.cpuUsage(cpu0);
        if (i > 0) {
          times[key].push(performance.now() - t0);
          cpus[key].push((cpu.user + cpu.system) / 1000);
          if (key === "many") appendsPerRun.push(appends - appends0);
        }
        if (key === "many" && i === repeats) check = await verify(store, r, many);
      }
    }
    // After Arbor's runs, not between them: the AI SDK's runs leave a larger heap, whose GC slowed Arbor's.
    for (let i = 0; i <= repeats; i++) {
      for (const [key, deltas] of [
        ["sdkOne", one],
        ["sdkMany", many],
      ]) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const got = await aiSdkStream(deltas);
        const cpu = process.cpuUsage(cpu0);
        if (i > 0) {
          times[key].push(performance.now() - t0);
          cpus[key].push((cpu.user + cpu.system) / 1000);
        }
        if (key === "sdkMany" && i === repeats) {
          sdkCheck = got.count === many.length && got.text === many.join("") ? "ok" : `MISMATCH — ${got.count} deltas`;
        }
      }
    }
    const oneMs = median(times.one);
    const manyMs = median(times.many);
    const added = manyMs - oneMs;
    const addedCpu = median(cpus.many) - median(cpus.one);
    const sdkUs = ((median(times.sdkMany) - median(times.sdkOne)) * 1000) / DELTAS;
    const sdkCpuUs = ((median(cpus.sdkMany) - median(cpus.sdkOne)) * 1000) / DELTAS;
    const usPerDelta = (added * 1000) / DELTAS;
    const row = (label, key, perDelta, cpuPerDelta, vsSdk, target) => [
      label,
      repeats,
      num(median(times[key])),
      num(Math.min(...times[key])),
      num(median(cpus[key])),
      perDelta === undefined ? "" : num(perDelta),
      cpuPerDelta === undefined ? "" : num(cpuPerDelta),
      vsSdk,
      target ? `≤ ${TARGET_US} µs/delta` : "",
      target ? ratio(perDelta / TARGET_US) : "",
    ];
    const n = DELTAS.toLocaleString("en-US");
    table(
      ["<run", "runs", "p50 ms", "best ms", "CPU ms", "µs/delta", "CPU µs/delta", "vs AI SDK", "<target", "vs target"],
      [
        row("AI SDK streamText, 1 delta", "sdkOne", undefined, undefined, "", false),
        row(`AI SDK streamText, ${n} deltas`, "sdkMany", sdkUs, sdkCpuUs, "1×", false),
        row("Arbor, 1 delta (same text)", "one", undefined, undefined, "", false),
        row(`Arbor, ${n} deltas`, "many", usPerDelta, (addedCpu * 1000) / DELTAS, ratio(sdkUs / usPerDelta), true),
      ],
    );
    note(`persisted assistant text and the reader's tokens equal the joined deltas: ${check}`);
    note(`the AI SDK's text deltas equal the joined deltas: ${sdkCheck}`);
    note(`event log appends per ${n}-delta run (median): ${median(appendsPerRun)}`);
    note("AI SDK streamText: the same scripted model's step read through the AI SDK's streamText (fullStream) alone,");
    note("nothing persisted, no tools; vs AI SDK is its µs/delta ÷ Arbor's (above 1×: Arbor adds less a delta).");
  } finally {
    await opened.close();
  }
}

/** One step of `deltas` through the AI SDK's streamText alone: its text deltas counted and joined. */
async function aiSdkStream(deltas) {
  const result = streamText({ model: scriptedModel(textScript(deltas), { record: false }), prompt: "Say a lot." });
  let count = 0;
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type !== "text-delta") continue;
    count++;
    text += part.text;
  }
  return { count, text };
}

async function verify(store, r, deltas) {
  const expected = deltas.join("");
  const problems = [];
  if (r.counts.token !== deltas.length) problems.push(`${r.counts.token ?? 0} token events, expected ${deltas.length}`);
  if (r.text !== expected) problems.push("the reader's tokens differ");
  const path = await store.getActivePath(r.sessionId);
  const last = path.at(-1);
  const stored =
    last?.type === "message" && last.message.role === "assistant"
      ? last.message.content
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join("")
      : undefined;
  if (stored === undefined) problems.push("no assistant message at the end of the path");
  else if (stored !== expected) problems.push(`persisted text differs (${stored.length} vs ${expected.length} chars)`);
  return problems.length === 0 ? "ok" : `MISMATCH — ${problems.join("; ")}`;
}

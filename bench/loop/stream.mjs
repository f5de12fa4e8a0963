// Section "stream": what 10,000 streamed text deltas add to a run, through the whole runtime.
import { join } from "node:path";
import { note, num, ratio, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { consume, runtimeFor, textScript } from "./harness.mjs";

const DELTAS = 10_000;
const TARGET_MS = 50;

/** Short word-like deltas, as a provider streams them (a few characters each). */
function deltaArray(n) {
  return Array.from({ length: n }, (_, i) => (i % 13 === 12 ? `w${i}.\n` : `w${i} `));
}

export async function run({ core, tmp, quick }) {
  const repeats = quick ? 3 : 7;
  section(`S1. Streaming: one step of ${DELTAS.toLocaleString("en-US")} text deltas against one step of 1 delta`);
  note("The whole runtime (scripted model → loop → event channel → reader), file store, the assistant message");
  note(`persisted. Runs alternate; median of ${repeats} each after a warm-up pair.`);
  const many = deltaArray(DELTAS);
  const one = [many.join("")];
  const store = await core.openStore({ kind: "file", dir: join(tmp, "stream-file"), durability: "process" });
  try {
    const times = { many: [], one: [] };
    let check = "";
    for (let i = 0; i <= repeats; i++) {
      for (const [key, deltas] of [
        ["one", one],
        ["many", many],
      ]) {
        const runtime = runtimeFor(core, { store, script: textScript(deltas), tmp });
        const r = await consume(runtime, { prompt: "Say a lot." }, { tokens: key === "many" });
        if (i > 0) times[key].push(r.ms);
        if (key === "many" && i === repeats) check = await verify(store, r, many);
      }
    }
    const oneMs = median(times.one);
    const manyMs = median(times.many);
    const added = manyMs - oneMs;
    table(
      ["<run", "runs", "p50 ms", "best ms", "added ms", "µs/delta", "<target", "vs target"],
      [
        ["1 delta (same text)", repeats, num(oneMs), num(Math.min(...times.one)), "", "", "", ""],
        [
          `${DELTAS.toLocaleString("en-US")} deltas`,
          repeats,
          num(manyMs),
          num(Math.min(...times.many)),
          num(added),
          num((added * 1000) / DELTAS),
          `≤ ${TARGET_MS} ms added`,
          ratio(added / TARGET_MS),
        ],
      ],
    );
    note(`persisted assistant text and the reader's tokens equal the joined deltas: ${check}`);
    note("For scale, quoted in the issue (not measured here): the AI SDK's streamText alone costs ~0.6–0.8 s for");
    note("10,000 deltas on this machine.");
  } finally {
    await store.close();
  }
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

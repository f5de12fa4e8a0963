// Section "cache": the LLM response cache — what a key costs, and a run answered live, recorded, or replayed.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, usage } from "@arbor/testkit";
import { note, num, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { consume } from "../loop/harness.mjs";

const DELTAS = 10_000;
/** A fixed clock: every run has the same system prompt (it holds the date), so the same key. */
const CLOCK = { now: () => Date.parse("2026-03-01T10:00:00.000Z"), sleep: async () => {} };

function prompt(messages, systemChars) {
  const out = [{ role: "system", content: "s".repeat(systemChars) }];
  for (let i = 0; i < messages; i++) {
    out.push(
      i % 2 === 0
        ? { role: "user", content: [{ type: "text", text: `question ${i} `.repeat(15) }] }
        : { role: "assistant", content: [{ type: "text", text: `answer ${i} `.repeat(18) }] },
    );
  }
  return out;
}

function keyCost(core) {
  const rows = [];
  for (const messages of [10, 1_000, 10_000]) {
    const options = { prompt: prompt(messages, 8_000), temperature: 0.7 };
    const times = [];
    for (let i = 0; i < 2_000; i++) {
      const t0 = performance.now();
      core.cacheKey(options, "openai/gpt-4o");
      times.push(performance.now() - t0);
    }
    rows.push([`${messages.toLocaleString("en-US")} messages, 8 KB system prompt`, num(median(times.slice(200)) * 1000)]);
  }
  return rows;
}

function deltas(n) {
  return Array.from({ length: n }, (_, i) => (i % 13 === 12 ? `w${i}.\n` : `w${i} `));
}

export async function run({ core, tmp, quick }) {
  section("C1. LLM cache key: sha256 of the system prompt, the last 3 history messages and the new message");
  note("Median µs per key; the window is fixed, so the cost does not grow with the conversation.");
  table(["<prompt", "µs/key"], keyCost(core));

  const repeats = quick ? 3 : 7;
  section(`C2. A run of one step of ${DELTAS.toLocaleString("en-US")} text deltas: live, recorded, replayed`);
  note("Whole runtime, file store, a model with no latency (so this is the cache's own cost; a real hit also");
  note(`saves the provider's seconds). Median of ${repeats} runs after a warm-up; each run is a new session.`);
  const cwd = join(tmp, "cache-workspace");
  const arborHome = join(tmp, "cache-home");
  mkdirSync(cwd, { recursive: true });
  const store = await core.openStore({ kind: "file", dir: join(tmp, "cache-store"), durability: "process" });
  const script = () => [[text(deltas(DELTAS)), usage({ inputTokens: 10, outputTokens: DELTAS })]];
  const runtime = (cache) =>
    core.createRuntime({
      store,
      model: scriptedModel(script(), { record: false }),
      tools: [],
      cwd,
      arborHome,
      env: {},
      blobs: new core.MemoryBlobStore(),
      clock: CLOCK,
      cache,
    });
  const files = new core.LlmCache({ store: new core.FileCacheStore(join(tmp, "llm-cache")), now: CLOCK.now });
  const memory = new core.LlmCache({ now: CLOCK.now });
  const cases = [
    ["no cache (live)", () => false],
    ["miss: live, recorded (memory)", () => new core.LlmCache({ now: CLOCK.now })],
    [
      "miss: live, recorded (file)",
      () => new core.LlmCache({ store: new core.FileCacheStore(join(tmp, `c-${Math.random()}`)), now: CLOCK.now }),
    ],
    ["hit: replayed (memory)", () => memory],
    ["hit: replayed (file)", () => files],
  ];
  try {
    // Fill the two caches the hits read.
    for (const cache of [memory, files]) await consume(runtime(cache), { prompt: "Say a lot." });
    const rows = [];
    for (const [label, cacheFor] of cases) {
      const times = [];
      for (let i = 0; i <= repeats; i++) {
        const r = await consume(runtime(cacheFor()), { prompt: "Say a lot." }, { tokens: true });
        if (r.counts.token !== DELTAS) throw new Error(`${label}: ${r.counts.token} token events, expected ${DELTAS}`);
        if (i > 0) times.push(r.ms);
      }
      rows.push([label, repeats, num(median(times)), num(Math.min(...times))]);
    }
    table(["<run", "runs", "p50 ms", "best ms"], rows);
    const stats = await files.stats();
    note(
      `file cache: ${stats.entries} recording, ${num(stats.bytes / 1024)} KB of JSON for ${DELTAS.toLocaleString("en-US")} deltas;`,
    );
    note(`hits ${stats.hits}, misses ${stats.misses}. Every replay streamed all ${DELTAS.toLocaleString("en-US")} token events.`);
  } finally {
    await store.close();
  }
}

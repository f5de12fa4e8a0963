// Section "resume": continuing a long session in a fresh process. A 100,000-entry session whose last
// compaction is 1,000 entries back is continued for one model call; what it costs should follow the live
// context (the entries after the compaction), not the size of the whole tree.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { count, mb, note, num, ratio, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { messageEntry, textPool } from "./messages.mjs";

const CHILD = fileURLToPath(new URL("./resume-child.mjs", import.meta.url));
const TARGET_MS = 50;
const TARGET_MB = 100;
/** What a resume of the long session may add to a resume of the short one with the same tail. */
const TARGET_GROWTH_MS = 50;
/** Peak RSS a resume may add above a process that only imports the library. */
const TARGET_NET_MB = 40;
const TAIL = 1000;
/** A short session with the same tail: its figures are the part of a resume that does not grow with the session. */
const SMALL = 2 * TAIL;

function child(job) {
  const r = spawnSync(process.execPath, [CHILD, JSON.stringify(job)], { encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) {
    const err = (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split("\n");
    throw new Error(err.find((l) => /Error|error/.test(l)) ?? err[0]);
  }
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

/**
 * A message entry as a run writes it: assistant messages carry the provider's usage, which the next
 * run's context measure starts from instead of counting the whole context.
 */
function entry(i, body) {
  const e = messageEntry(i, body);
  if (e.message.role === "assistant") {
    e.message.tokens = { input: 20_000 + i, output: 80, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
  }
  return e;
}

/** `total` entries on one linear path; a compaction `TAIL` entries before the end keeps only what follows it. */
async function build(core, spec, total) {
  const store = await core.openStore(spec);
  try {
    const pool = textPool(64, 300, 5);
    const sid = (await store.createSession({ title: "long session" })).id;
    const before = total - TAIL;
    for (let done = 0; done < before - 1; ) {
      const n = Math.min(1000, before - 1 - done);
      await store.appendEntries(
        sid,
        Array.from({ length: n }, (_, i) => entry(done + i, pool[(done + i) % pool.length])),
      );
      done += n;
    }
    await store.appendCompaction(sid, {
      summary: "Summary of the work so far.",
      firstKeptEntryId: null,
      tokensBefore: 9_000_000,
    });
    for (let done = 0; done < TAIL; done += 500) {
      await store.appendEntries(
        sid,
        Array.from({ length: 500 }, (_, i) => entry(done + i, pool[(done + i) % pool.length])),
      );
    }
    return sid;
  } finally {
    await store.close();
  }
}

export async function run({ core, tmp, quick, baseline }) {
  const total = quick ? 20_000 : 100_000;
  const runs = quick ? 1 : 3;
  section(`R1. Resume: continue a ${count(total)}-entry session whose last compaction is ${count(TAIL)} entries back`);
  note("A fresh process opens the store and runs one model call on the session (scripted, zero latency). Time from");
  note(`openStore to the first llm_start and to the result, and the process's peak RSS; median of ${runs}.`);
  note(`The ${count(SMALL)}-entry rows (the same tail on a short session) show the part that does not grow with it.`);
  const base = child({ importOnly: true });
  const rows = [];
  /** Per store: the time to the first call and the RSS net of the import, by session size. */
  const byKind = {};
  for (const [kind, size, spec] of [
    ["file", total, { kind: "file", dir: join(tmp, "resume-file"), durability: "process" }],
    ["file", SMALL, { kind: "file", dir: join(tmp, "resume-file-small"), durability: "process" }],
    ["sqlite", total, { kind: "sqlite", file: join(tmp, "resume.db"), durability: "process" }],
    ["sqlite", SMALL, { kind: "sqlite", file: join(tmp, "resume-small.db"), durability: "process" }],
  ]) {
    const t0 = performance.now();
    const sessionId = await build(core, spec, size);
    const compare = (name, value) => (quick || size !== total ? "–" : baseline.compare(`resume.${kind}.${name}`, value, "lower"));
    const buildS = (performance.now() - t0) / 1000;
    // Each child continues the session once more, so every run resumes a session of the same shape.
    const results = Array.from({ length: runs }, () => child({ spec, sessionId, tmp }));
    const open = median(results.map((r) => r.openMs));
    const first = median(results.map((r) => r.firstCallMs));
    const done = median(results.map((r) => r.doneMs));
    const rss = median(results.map((r) => r.maxRssKB)) * 1024;
    byKind[kind] ??= {};
    byKind[kind][size] = { first, net: rss - base.maxRssKB * 1024 };
    rows.push([
      kind,
      count(size),
      num(buildS),
      num(open),
      num(first),
      num(done),
      `≤ ${TARGET_MS}`,
      ratio(first / TARGET_MS),
      compare("first_call_ms", first),
      mb(rss),
      mb(rss - base.maxRssKB * 1024),
      `≤ ${TARGET_MB} MB`,
      ratio(rss / (TARGET_MB * 1024 * 1024)),
      compare("peak_rss", rss),
    ]);
  }
  table(
    [
      "<store",
      "entries",
      "build s",
      "open ms",
      "to 1st call ms",
      "to result ms",
      "target",
      "vs target",
      "vs before",
      "peak RSS",
      "net of import",
      "target",
      "vs target",
      "vs before",
    ],
    rows,
  );
  note("open ms: openStore alone, part of the time to the first call; it does not grow with the session.");
  note(
    `net of import: peak RSS minus that of a process that only imports @arbor/core and testkit (${mb(base.maxRssKB * 1024)}).`,
  );
  table(
    ["<store", `${count(total)} − ${count(SMALL)} to 1st call ms`, "target", "vs target", "net of import", "target", "vs target"],
    Object.entries(byKind).map(([kind, by]) => {
      const growth = by[total].first - by[SMALL].first;
      return [
        kind,
        num(growth),
        `≤ ${TARGET_GROWTH_MS}`,
        ratio(Math.max(0, growth) / TARGET_GROWTH_MS),
        mb(by[total].net),
        `≤ ${TARGET_NET_MB} MB`,
        ratio(by[total].net / (TARGET_NET_MB * 1024 * 1024)),
      ];
    }),
  );
  note(
    `What the long session adds: its time to the first call minus the short one's, and its peak RSS above the import (${count(total)} entries).`,
  );
}

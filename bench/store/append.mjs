// Figure 1: append latency per backend and durability, and group commit under 16 concurrent appenders.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { count, note, num, ratio, reason, section, table } from "../lib/format.mjs";
import { PEERS_MISSING, peerScript } from "../lib/peers.mjs";
import { now, summarize, us } from "../lib/stats.mjs";
import { openBackendStore, prepareBackend, probe } from "./backends.mjs";
import { countFsyncs } from "./fsync-counter.mjs";
import { messageEntry, role, textPool } from "./messages.mjs";
import { sqliteFloor } from "./sqlite-floor.mjs";

const KINDS = ["file", "sqlite", "mysql", "postgres"];
const TARGET_P50_US = { file: 50, sqlite: 50 };
const WORKERS = 16;
const pool = textPool(64, 300, 3);
let seq = 0;
const message = () => ({ role: role(seq), content: pool[seq++ % pool.length] });

/** Sequential appends to one session: warm-up, then up to `max` timed appends (at least `min`, within `seconds`). */
async function sequential(store, sessionId, { warmup, min, max, seconds }) {
  for (let i = 0; i < warmup; i++) await store.appendMessage(sessionId, message());
  const sample = [];
  const start = now();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  while (sample.length < max && (sample.length < min || now() < deadline)) {
    const t0 = now();
    await store.appendMessage(sessionId, message());
    sample.push(us(t0, now()));
  }
  const elapsedS = us(start, now()) / 1e6;
  return { ...summarize(sample), perSec: sample.length / elapsedS };
}

/** WORKERS loops appending for `seconds`; worker i writes to sessionIds[i % length]. */
async function concurrent(store, sessionIds, seconds) {
  const sample = [];
  const start = now();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  const worker = async (i) => {
    const sid = sessionIds[i % sessionIds.length];
    while (now() < deadline) {
      const t0 = now();
      await store.appendMessage(sid, message());
      sample.push(us(t0, now()));
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
  const elapsedS = us(start, now()) / 1e6;
  return { ...summarize(sample), perSec: sample.length / elapsedS };
}

export async function run(ctx) {
  await atDepth(ctx);
  await latency(ctx);
}

const DEPTH = 50_000;
const DEPTH_TARGET_US = { file: 10, sqlite: 25 };
/** A one-off append by a process that does not hold the session (it takes the cross-process write lock). */
const NO_LEASE_TARGET_US = { file: 40 };

/**
 * A1: appends to a session that already holds 50k entries, the size the figures are taken at.
 * "process" is the mode that survives a crash of the process (the bytes are in the OS before the append
 * returns); "fsync" survives a power loss, and its concurrent row shows what group commit recovers.
 */
async function atDepth({ core, tmp, quick, baseline }) {
  const depth = quick ? 10_000 : DEPTH;
  section(`A1. Append at ${count(depth)} entries (sequential appendMessage, ~300-byte messages)`);
  const rows = [];
  // pi's session file first, so each Arbor row can print its ratio to it.
  const piScript = peerScript("pi-append.mjs");
  const pi = piScript
    ? JSON.parse(execFileSync(process.execPath, [piScript, String(depth), "5000", join(tmp, "pi-append")], { encoding: "utf8" }))
    : undefined;
  if (pi) rows.push(["pi", "process, no lock", count(pi.n), num(pi.p50), num(pi.p99), num(pi.perSec), "", "", "1×", "–"]);
  const vsPi = (p50) => (pi ? ratio(pi.p50 / p50) : "–");
  for (const kind of ["file", "sqlite"]) {
    const backend = await prepareBackend(kind, tmp);
    for (const durability of ["process", "fsync"]) {
      const spec = backend.spec(durability, `depth-${durability}`);
      const store = await openBackendStore(core, spec);
      let sid;
      let leasedP50;
      try {
        sid = (await store.createSession({ title: "append at depth" })).id;
        for (let done = 0; done < depth; done += 1000) {
          await store.appendEntries(
            sid,
            Array.from({ length: 1000 }, (_, i) => messageEntry(done + i, pool[(done + i) % pool.length])),
          );
        }
        if (durability === "process") {
          // Without the lease every append also takes the session's cross-process write lock.
          const u = await sequential(store, sid, { warmup: 100, min: 1000, max: 1000, seconds: 10 });
          const before = quick ? "–" : baseline.compare(`append.depth.${kind}.process.p50_us`, u.p50, "lower");
          const t = NO_LEASE_TARGET_US[kind];
          rows.push([
            kind,
            "process, no lease",
            count(u.n),
            num(u.p50),
            num(u.p99),
            num(u.perSec),
            t ? `p50 ≤ ${t}` : "",
            t ? ratio(u.p50 / t) : "",
            vsPi(u.p50),
            before,
          ]);
        }
        // A run holds its session's lease, so no other process writes it and appends skip the lock.
        const lease = await store.acquireLease(sid, "bench");
        const r =
          durability === "process"
            ? await sequential(store, sid, { warmup: 500, min: 5000, max: 5000, seconds: 10 })
            : await sequential(store, sid, { warmup: 50, min: 200, max: quick ? 300 : 1000, seconds: quick ? 1 : 3 });
        const target = durability === "process" ? DEPTH_TARGET_US[kind] : undefined;
        const key = `append.depth.${kind}.${durability}.leased`;
        leasedP50 = r.p50;
        rows.push([
          kind,
          durability,
          count(r.n),
          num(r.p50),
          num(r.p99),
          num(r.perSec),
          target ? `p50 ≤ ${target}` : "",
          target ? ratio(r.p50 / target) : "",
          durability === "process" ? vsPi(r.p50) : "–",
          quick ? "–" : baseline.compare(`${key}.p50_us`, r.p50, "lower"),
        ]);
        if (durability === "fsync") {
          const g = await concurrent(store, [sid], quick ? 1 : 2);
          await lease.release();
          rows.push([
            kind,
            `fsync, ${WORKERS} appenders (group commit)`,
            count(g.n),
            num(g.p50),
            num(g.p99),
            num(g.perSec),
            "",
            "",
            "–",
            quick ? "–" : baseline.compare(`${key}.group_per_s`, g.perSec, "higher"),
          ]);
        } else await lease.release();
      } finally {
        await store.close();
      }
      if (kind === "sqlite" && durability === "process") {
        // The same commit without Arbor, on the file just written and closed: SQLite's own floor.
        const f = sqliteFloor(spec.file, sid, { n: quick ? 2000 : 5000 });
        const t = DEPTH_TARGET_US.sqlite;
        rows.push([
          "sqlite",
          "floor: better-sqlite3 alone",
          count(f.n),
          num(f.p50),
          num(f.p99),
          num(1e6 / f.p50),
          `p50 ≤ ${t}`,
          ratio(f.p50 / t),
          vsPi(f.p50),
          `Arbor ${ratio(leasedP50 / f.p50)}`,
        ]);
      }
    }
  }
  table(
    ["<backend", "<durability", "n", "p50 µs", "p99 µs", "appends/s", "<target", "vs target", "p50 vs pi", "p50 vs before"],
    rows,
  );
  note('Rows without "no lease" hold the session\'s lease, as a run does for its session.');
  note("floor: better-sqlite3 alone runs the statements of Arbor's SQLite append (the lease row read, the entry's insert,");
  note("and the session row's update when the lease holder rewrites it: once its entries pass 256 rows beyond the row) in one");
  note("IMMEDIATE transaction on the same database, closed by Arbor first: what SQLite's commit costs here (its WAL frames");
  note("and locks). Its last column is the Arbor row's p50 ÷ this one's. A holder's session row lags its entries and");
  note("readers fold them in (packages/core/src/store/sql/sqlite-session-tail.ts): the row's page is not in every commit.");
  if (pi) {
    note("pi: @mariozechner/pi-coding-agent's SessionManager.appendMessage on a session of as many entries, the same messages,");
    note("in a process of its own: a synchronous JSON-line append to its file, no lock, lease or fsync. p50 vs pi: pi's p50 ÷");
    note("the row's (above 1×: the row's append is cheaper).");
  } else note(PEERS_MISSING);
  note("process: the append is in the OS (file) or committed with synchronous=NORMAL in WAL (SQLite) before it returns,");
  note("so a crash of the process loses nothing; fsync: on disk before it returns. The group-commit row is appends/s");
  note("of 16 concurrent appenders to the same session, whose fsyncs are shared (its vs before compares appends/s).");
}

async function latency({ core, tmp, quick }) {
  section("1. Append latency (sequential appendMessage, ~300-byte messages, after warm-up)");
  const seqRows = [];
  const groupRows = [];
  const notes = [];
  for (const kind of KINDS) {
    let backend;
    try {
      backend = await prepareBackend(kind, tmp);
    } catch (err) {
      notes.push(`${kind}: skipped — ${reason(err)}`);
      continue;
    }
    try {
      const why = await probe(core, backend);
      if (why) {
        notes.push(`${kind}: skipped — ${why}`);
        continue;
      }
      const server = kind === "mysql" || kind === "postgres";
      if (server) notes.push(`${kind}: database ${backend.db}; server durability ${backend.settings || "unknown"}`);
      const byMode = {};
      for (const durability of ["process", "fsync"]) {
        const store = await openBackendStore(core, backend.spec(durability, `append-${durability}`));
        try {
          const sid = (await store.createSession({ title: `append ${durability}` })).id;
          const opts =
            durability === "process" && !server
              ? { warmup: 500, min: quick ? 2000 : 10000, max: quick ? 2000 : 10000, seconds: 10 }
              : { warmup: 100, min: 200, max: quick ? 500 : 3000, seconds: quick ? 1.5 : 4 };
          const r = await sequential(store, sid, opts);
          byMode[durability] = r;
          const target = durability === "process" ? TARGET_P50_US[kind] : undefined;
          seqRows.push([
            kind,
            durability,
            count(r.n),
            num(r.p50),
            num(r.p99),
            num(r.max),
            num(r.perSec),
            target ? `p50 ≤ ${target}` : "",
            target ? ratio(r.p50 / target) : "",
            durability === "fsync" && byMode.process ? ratio(r.p50 / byMode.process.p50) : "",
          ]);
          if (durability === "fsync") {
            const seconds = quick ? 1.5 : 3;
            groupRows.push([kind, "1 appender", num(r.perSec), "1×", num(r.p50), num(r.p99), ""]);
            const across = [];
            for (let i = 0; i < WORKERS; i++) {
              const id = (await store.createSession({ title: `group ${i}` })).id;
              await store.appendMessage(id, message());
              across.push(id);
            }
            for (const [label, ids] of [
              [`${WORKERS} across ${WORKERS} sessions`, across],
              [`${WORKERS} in one session`, [sid]],
            ]) {
              const counter = kind === "file" ? countFsyncs() : null;
              let g;
              try {
                g = await concurrent(store, ids, seconds);
              } finally {
                counter?.stop();
              }
              const perAppend = counter ? num(counter.calls / g.n) : "n/a";
              groupRows.push([kind, label, num(g.perSec), ratio(g.perSec / r.perSec), num(g.p50), num(g.p99), perAppend]);
            }
          }
        } finally {
          await store.close();
        }
      }
    } catch (err) {
      notes.push(`${kind}: failed — ${reason(err)}`);
    } finally {
      await backend.cleanup().catch((err) => notes.push(`${kind}: cleanup failed — ${reason(err)}`));
    }
  }
  if (seqRows.length) {
    table(
      ["<backend", "<durability", "n", "p50 µs", "p99 µs", "max µs", "appends/s", "<target", "vs target", "fsync/process p50"],
      seqRows,
    );
  }
  if (groupRows.length) {
    console.log("\n  Group commit, durability fsync (concurrent appendMessage for a fixed time):");
    table(["<backend", "<appenders", "appends/s", "vs 1 appender", "p50 µs", "p99 µs", "fsyncs/append"], groupRows);
    note("fsyncs/append counts fsync calls made through node:fs (file store only); < 1 means appends shared an fsync.");
  }
  for (const n of notes) note(n);
}

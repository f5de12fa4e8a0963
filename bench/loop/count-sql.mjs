// Counts the SQLite statements and transactions of the loop section's run, per step, by statement text:
//   node bench/loop/count-sql.mjs [runs] [steps]
// Patches better-sqlite3's prepare and transaction before the store opens, so every statement the store
// runs (its prepared ones and Kysely's) is seen, with the main thread's CPU each took; a `transaction()`
// call is timed whole (its statements included), so BEGIN + COMMIT is its time minus theirs. The thread
// clock may tick coarsely (ms): a figure is an average over many calls, not each call's cost.

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consume, LOOP_BACKENDS, loadCore, openBackend, runtimeFor, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const require = createRequire(join(process.cwd(), "packages/core/package.json"));
const Database = require("better-sqlite3");
// Per statement text: how many times it ran and the main thread's CPU it took (µs).
const counts = new Map();
const bump = (key, us = 0) => {
  const c = counts.get(key) ?? { n: 0, us: 0 };
  c.n++;
  c.us += us;
  counts.set(key, c);
};
const timed = (key, f) => {
  const t0 = process.threadCpuUsage();
  try {
    return f();
  } finally {
    const d = process.threadCpuUsage(t0);
    bump(key, d.user + d.system);
  }
};
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql, ...rest) {
  const stmt = prepare.call(this, sql, ...rest);
  const text = sql.replace(/\s+/g, " ").slice(0, 110);
  for (const m of ["run", "get", "all", "iterate"]) {
    const orig = stmt[m];
    stmt[m] = function (...args) {
      return timed(text, () => orig.apply(this, args));
    };
  }
  return stmt;
};
const transaction = Database.prototype.transaction;
Database.prototype.transaction = function (fn) {
  const t = transaction.call(this, fn);
  const wrap = (kind, f) =>
    function (...args) {
      return timed(`(transaction ${kind}, all of it)`, () => f.apply(this, args));
    };
  const out = wrap("default", t);
  for (const k of ["deferred", "immediate", "exclusive"]) out[k] = wrap(k, t[k]);
  return out;
};

const core = await loadCore();
const [runsArg = "3", stepsArg = "201"] = process.argv.slice(2);
const backend = LOOP_BACKENDS.find((b) => b.label.startsWith("sqlite"));
const tmp = mkdtempSync(join(tmpdir(), "arbor-count-"));
const steps = Number(stepsArg);
const store = await openBackend(core, backend, tmp);
try {
  counts.clear();
  for (let i = 0; i < Number(runsArg); i++) {
    const runtime = runtimeFor(core, { store, script: toolLoopScript(steps), tmp });
    await consume(runtime, { prompt: USER_PROMPT, maxTurns: steps + 10 });
  }
  const per = steps * Number(runsArg);
  console.log("  runs/step  CPU µs/step  µs/run  statement");
  for (const [k, { n, us }] of [...counts].sort((a, b) => b[1].us - a[1].us))
    console.log(
      `${(n / per).toFixed(2).padStart(11)}  ${(us / per).toFixed(1).padStart(11)}  ${(us / n).toFixed(1).padStart(6)}  ${k}`,
    );
} finally {
  await store.close();
  rmSync(tmp, { recursive: true, force: true });
}

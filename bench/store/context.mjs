// Figure 3: context after one append on a 10k-deep path — incremental applyEntry vs full re-walk.
import { note, num, ratio, section, table } from "../lib/format.mjs";
import { median, now, summarize, us } from "../lib/stats.mjs";
import { messageEntry, role, textPool } from "./messages.mjs";

const DEPTH = 10_000;
const TARGET_US = 1000;

export async function run({ core, tmp, quick }) {
  section(`3. Context after one append on a ${DEPTH / 1000}k-deep path (file store, ~300-byte messages)`);
  const { applyEntry, buildContext, contextMessages } = core;
  const pool = textPool(64, 300, 11);
  const store = await core.openStore({ kind: "file", dir: `${tmp}/context`, durability: "process" });
  try {
    const sid = (await store.createSession({ title: "context" })).id;
    for (let i = 0; i < DEPTH; i += 1000) {
      await store.appendEntries(
        sid,
        Array.from({ length: 1000 }, (_, j) => messageEntry(i + j, pool[(i + j) % pool.length])),
      );
    }
    const path = await store.getActivePath(sid);

    // Full walk: the first build after loading the path, then repeated re-walks.
    let t0 = now();
    let state = buildContext(path);
    const firstBuildUs = us(t0, now());
    const rewalks = [];
    for (let i = 0; i < (quick ? 10 : 30); i++) {
      t0 = now();
      buildContext(path);
      rewalks.push(us(t0, now()));
    }
    const base = state;

    // One append, then applyEntry on the state at the old leaf (the tip: extends the buffer in place).
    const appends = quick ? 300 : 2000;
    const applies = [];
    let firstApplyUs = 0;
    const appended = [];
    for (let i = 0; i < appends; i++) {
      const entry = await store.appendMessage(sid, { role: role(i), content: pool[i % pool.length] });
      appended.push(entry);
      t0 = now();
      state = applyEntry(state, entry);
      const dt = us(t0, now());
      if (i === 0) firstApplyUs = dt;
      applies.push(dt);
    }
    const inc = summarize(applies);

    // applyEntry on a state that is no longer the tip (a branch off the old leaf) copies the buffer.
    const branch = [];
    for (let i = 0; i < (quick ? 20 : 100); i++) {
      t0 = now();
      applyEntry(base, appended[0]);
      branch.push(us(t0, now()));
    }

    // Materializing the message list for a model call is O(path) too.
    const materialize = [];
    for (let i = 0; i < (quick ? 20 : 100); i++) {
      t0 = now();
      contextMessages(state);
      materialize.push(us(t0, now()));
    }

    const fullPath = await store.getActivePath(sid);
    const same = JSON.stringify(contextMessages(buildContext(fullPath))) === JSON.stringify(contextMessages(state));

    const rw = summarize(rewalks);
    const br = summarize(branch);
    const mat = summarize(materialize);
    table(
      ["<operation", "n", "p50 µs", "p99 µs", "max µs", "<target", "vs target", "re-walk p50 ÷ this"],
      [
        [
          "applyEntry after one append (first)",
          1,
          num(firstApplyUs),
          "",
          "",
          `≤ ${TARGET_US}`,
          ratio(firstApplyUs / TARGET_US),
          ratio(rw.p50 / firstApplyUs),
        ],
        [
          "applyEntry after one append (steady)",
          inc.n,
          num(inc.p50),
          num(inc.p99),
          num(inc.max),
          `≤ ${TARGET_US}`,
          ratio(inc.p50 / TARGET_US),
          ratio(rw.p50 / inc.p50),
        ],
        ["applyEntry on an older state (branch)", br.n, num(br.p50), num(br.p99), num(br.max), "", "", ratio(rw.p50 / br.p50)],
        ["buildContext, first walk of 10k path", 1, num(firstBuildUs), "", "", "", "", ""],
        ["buildContext full re-walk (10k)", rw.n, num(rw.p50), num(rw.p99), num(rw.max), "", "", "1×"],
        [
          "contextMessages(state) (10k messages)",
          mat.n,
          num(mat.p50),
          num(mat.p99),
          num(mat.max),
          "",
          "",
          ratio(rw.p50 / mat.p50),
        ],
      ],
    );
    note(
      `incremental state after ${appends} appends ${same ? "equals" : "DIFFERS FROM"} a full buildContext of the new path (median re-walk ${num(median(rewalks) / 1000)} ms).`,
    );
  } finally {
    await store.close();
  }
}

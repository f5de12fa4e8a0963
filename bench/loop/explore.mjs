// Section "explore": parallel sub-traces. 8 explore branches × 20 steps against 1 branch × 20 steps on the
// zero-latency scripted model, and a check that every sub-trace kept every entry in one valid chain; then
// the same with a real model's latency (every model call waits LATENCY_MS before it answers), where the
// branches' waits overlap and 8 should cost about what 1 does.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { delay, routedModel, scriptedModel, taskOf, text, toolCall, usage } from "@arbor/testkit";
import { note, num, ratio, section, table } from "../lib/format.mjs";
import { median } from "../lib/stats.mjs";
import { LOOP_BACKENDS, openBackend, trivialTool } from "./harness.mjs";

const STEPS = 20;
const TARGET = 2.5;
const TARGET_FIXED_MS = 1;
/** A model call's wait before it answers in E2, about a hosted model's time to first token. */
const LATENCY_MS = 200;
/** Steps a branch takes in E2: enough waits to show overlap, few enough to keep the section short. */
const LATENCY_STEPS = 5;
const TARGET_LATENCY = 1.3;

/** `steps - 1` steps calling the trivial tool (a new input each), then a report; each call first waits `latency` ms. */
function branchScript(name, steps, latency = 0) {
  const wait = latency > 0 ? [delay(latency)] : [];
  const script = [];
  for (let i = 0; i < steps - 1; i++)
    script.push([...wait, toolCall("noop", { n: i }), usage({ inputTokens: 50 + i, outputTokens: 8 })]);
  script.push([...wait, text(`${name}: done`), usage({ inputTokens: 80, outputTokens: 4 })]);
  return script;
}

function runtimeWith(core, store, tmp, branches, steps, latency = 0) {
  const names = Array.from({ length: branches }, (_, i) => `branch-${i}`);
  const models = {
    main: scriptedModel([[toolCall("explore", { branches: names, background: "bench" })], [text("merged")]], { record: false }),
  };
  for (const name of names) models[name] = scriptedModel(branchScript(name, steps, latency), { record: false });
  const cwd = join(tmp, "workspace");
  const arborHome = join(tmp, "arbor-home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(arborHome, { recursive: true });
  return core.createRuntime({
    store,
    model: routedModel({ route: (prompt) => /branch-\d+$/.exec(taskOf(prompt))?.[0] ?? "main", models }),
    tools: [trivialTool(core), core.exploreTool()],
    // The bench's branches call the trivial tool, so the explore agent may use it (and only it).
    agents: { explore: { name: "explore", description: "bench explorer", mode: "subagent", permission: [] } },
    subAgents: { explore: { allowedTools: ["noop"], maxTurns: steps } },
    cwd,
    arborHome,
    env: {},
    blobs: new core.MemoryBlobStore(),
  });
}

/** Every sub-trace: STEPS assistant messages, STEPS-1 tool results, one user message, one parent chain. */
async function checkSubTraces(store, parentId, branches) {
  const subs = (await store.listSessions({ parentSessionId: parentId, limit: 100 })).sessions;
  if (subs.length !== branches) throw new Error(`expected ${branches} sub-traces, found ${subs.length}`);
  let entries = 0;
  for (const sub of subs) {
    const path = await store.getActivePath(sub.id);
    const all = await store.listEntries(sub.id);
    if (all.length !== path.length) throw new Error(`${sub.id}: ${all.length} entries but ${path.length} on the path`);
    for (let i = 1; i < path.length; i++) {
      if (path[i].parentId !== path[i - 1].id) throw new Error(`${sub.id}: entry ${i} does not follow ${i - 1}`);
    }
    const roles = {};
    for (const e of path) if (e.type === "message") roles[e.message.role] = (roles[e.message.role] ?? 0) + 1;
    if (roles.assistant !== STEPS || (roles.tool ?? 0) !== STEPS - 1 || roles.user !== 1) {
      throw new Error(`${sub.id}: ${JSON.stringify(roles)}`);
    }
    if (sub.status !== "completed") throw new Error(`${sub.id}: status ${sub.status}`);
    entries += path.length;
  }
  return entries;
}

/** The 8 ÷ 1 ratio's cells: the ratio, its target, the margin, and the change from the baseline (none with --quick). */
function ratioCells(r, target, vsBefore) {
  return [`${r.toFixed(2)}×`, `≤ ${target}×`, ratio(target / r), vsBefore ? vsBefore() : "–"];
}

async function timeRun(core, store, tmp, branches, steps = STEPS, latency = 0) {
  const runtime = runtimeWith(core, store, tmp, branches, steps, latency);
  const t0 = performance.now();
  const handle = runtime.runs.run({ prompt: "explore", maxTurns: 5 });
  for await (const _ of handle);
  const result = await handle.result;
  const ms = performance.now() - t0;
  await runtime.close();
  if (result.status !== "done") throw new Error(`run ended ${result.status}: ${result.error?.message}`);
  return { ms, sessionId: result.sessionId };
}

/** One row for each store that persists (the stub is left out), each store closed after its row. */
async function rowsPerStore(core, tmp, row) {
  const rows = [];
  for (const backend of LOOP_BACKENDS.filter((b) => b.spec(tmp) !== null)) {
    const store = await openBackend(core, backend, tmp);
    try {
      rows.push(await row(backend, store));
    } finally {
      await store.close();
    }
  }
  return rows;
}

/**
 * Runs `a` and `b` in turn, `warmUps + repeats` times, so both see the same conditions; the median wall
 * ms of each over the last `repeats`. `first` is given the first pair's results (to check what they stored).
 */
async function alternating(repeats, warmUps, a, b, first = async () => {}) {
  const as = [];
  const bs = [];
  for (let i = 0; i < warmUps + repeats; i++) {
    const ra = await a();
    const rb = await b();
    if (i === 0) await first(ra, rb);
    if (i < warmUps) continue;
    as.push(ra.ms);
    bs.push(rb.ms);
  }
  return [median(as), median(bs)];
}

export async function run({ core, tmp, quick, baseline }) {
  const repeats = quick ? 3 : 7;
  section(`E1. explore: 8 branches × ${STEPS} steps against 1 branch × ${STEPS} steps, zero-latency scripted model`);
  note("Each branch is a sub-trace (its own session) making 19 trivial tool calls and a report; every message persisted.");
  note(`Wall time of the parent run (2 steps of its own) to result; median of ${repeats} after 2 warm-ups.`);
  const rows = await rowsPerStore(core, tmp, async (backend, store) => {
    let checked = 0;
    const [one, eight] = await alternating(
      repeats,
      2,
      () => timeRun(core, store, tmp, 1),
      () => timeRun(core, store, tmp, 8),
      async (a, b) => {
        await checkSubTraces(store, a.sessionId, 1);
        checked = await checkSubTraces(store, b.sessionId, 8);
      },
    );
    // A sub-trace's fixed cost: what each extra one-step branch adds to the parent's wall time.
    const [oneStep, nineStep] = await alternating(
      repeats,
      2,
      () => timeRun(core, store, tmp, 1, 1),
      () => timeRun(core, store, tmp, 9, 1),
    );
    const fixed = (nineStep - oneStep) / 8;
    const r = eight / one;
    const key = `explore.${backend.label.split(" ")[0]}`;
    return [
      backend.label,
      num(one),
      num(eight),
      ...ratioCells(r, TARGET, quick ? undefined : () => baseline.compare(`${key}.ratio_8_1`, r, "lower")),
      num(fixed),
      `≤ ${TARGET_FIXED_MS}`,
      quick ? "–" : baseline.compare(`${key}.fixed_ms`, fixed, "lower"),
      `${checked} ok`,
    ];
  });
  table(
    [
      "<store",
      "1 branch ms",
      "8 branches ms",
      "8 ÷ 1",
      "target",
      "margin",
      "vs before",
      "fixed ms/sub-trace",
      "target",
      "vs before",
      "entries checked (8)",
    ],
    rows,
  );
  note("fixed ms/sub-trace: (9 one-step branches − 1 one-step branch) ÷ 8, the wall time one more sub-trace adds");
  note("apart from its steps (session creation, its meta writes, launch and result).");
  await withLatency({ core, tmp, quick, baseline });
}

/** E2: 8 branches against 1 when every model call waits as a hosted model's would. */
async function withLatency({ core, tmp, quick, baseline }) {
  const repeats = quick ? 2 : 3;
  section(
    `E2. explore with ${LATENCY_MS} ms of model latency: 8 branches × ${LATENCY_STEPS} steps against 1 branch × ${LATENCY_STEPS} steps`,
  );
  note(`Every branch model call waits ${LATENCY_MS} ms before it answers; median of ${repeats} after 1 warm-up.`);
  const rows = await rowsPerStore(core, tmp, async (backend, store) => {
    const [one, eight] = await alternating(
      repeats,
      1,
      () => timeRun(core, store, tmp, 1, LATENCY_STEPS, LATENCY_MS),
      () => timeRun(core, store, tmp, 8, LATENCY_STEPS, LATENCY_MS),
    );
    const r = eight / one;
    return [
      backend.label,
      num(one),
      num(eight),
      ...ratioCells(
        r,
        TARGET_LATENCY,
        quick ? undefined : () => baseline.compare(`explore.${backend.label.split(" ")[0]}.ratio_8_1_latency`, r, "lower"),
      ),
    ];
  });
  table(["<store", "1 branch ms", "8 branches ms", "8 ÷ 1", "target", "margin", "vs before"], rows);
  note(
    `The floor is ${LATENCY_STEPS} × ${LATENCY_MS} ms of waiting per branch; what 8 add above 1 is their steps' CPU and writes.`,
  );
}

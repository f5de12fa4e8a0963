import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Entry, RunEvent } from "@arbor/core";
import pg from "pg";
import { follow, type Instance, postChat, type Received } from "../../packages/cli/test/helpers/cluster.js";
import { chat, jsonLines, seededRandom } from "../../packages/cli/test/helpers/fault.js";
import { runLocalTrial } from "./local-run.js";
import { KINDS, type Kind, type TrialRecord, VIOLATIONS, type Violation } from "./record.js";
import type { World } from "./world.js";

/**
 * One trial: a short scripted job (two bash lines that append markers, maybe behind a permission
 * ask, then an answer), one fault at a seeded point, a watcher that follows the session's stream on
 * another instance than the fault's, and the checks of what the store, the watcher, effects.log and
 * a follow-up prompt show afterwards. Every choice comes from (seed, trial), so `--trial` replays it.
 */

export interface TrialOptions {
  boundMs: number;
  /** Planted fault: the watcher's record forgets one event it received, as a lossy stream would. */
  dropEvent: boolean;
  /** Without faults every trial is "none": what the self-check's plants are counted against. */
  faults: boolean;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A trial's own random source, from the run's seed and its number. */
function trialRandom(seed: number, trial: number) {
  process.env.ARBOR_CHAOS_TRIAL_SEED = String((Math.imul(seed ^ 0x9e3779b9, 31) + Math.imul(trial + 1, 0x85ebca6b)) >>> 0);
  return seededRandom("ARBOR_CHAOS_TRIAL_SEED");
}

/** The fault a trial draws first from its random source: what `--kinds` selects trials by. */
export function drawnKind(seed: number, trial: number): Kind {
  return KINDS[trialRandom(seed, trial).between(0, KINDS.length - 1)] as Kind;
}

const noViolations = (): Record<Violation, number> =>
  Object.fromEntries(VIOLATIONS.map((v) => [v, 0])) as Record<Violation, number>;

/** Terminates the PostgreSQL backends behind an instance's proxy (its store pool and its queue's). */
async function terminateBackends(world: World, inst: Instance): Promise<number> {
  const ports = (world.proxies.get(inst.name) as { upstreamPorts(): number[] }).upstreamPorts();
  const client = new pg.Client({ connectionString: world.db.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and client_port = any($1::int[])",
      [ports],
    );
    return rows.length;
  } finally {
    await client.end();
  }
}

/**
 * The sessions whose journal or event log holds the job's prompt (a queued chat leaves its message
 * in the log before its run writes it): how a client that lost a POST's answer looks before it posts
 * again, since POST /api/chat has no idempotency key and a second post is a second chat.
 */
async function sessionsOfJob(world: World, tag: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: world.db.url });
  await client.connect();
  try {
    const like = `%job ${tag}:%`;
    const { rows } = await client.query(
      "select session_id from arbor_events where data like $1 union select session_id from arbor_entries where data like $1",
      [like],
    );
    return rows.map((r: { session_id: string }) => r.session_id);
  } finally {
    await client.end();
  }
}

/** Answers every permission ask of the session any live instance lists, once per ask id. */
function answerAsks(world: World, sessionId: string, answers: Map<string, number>): { stop(): Promise<void> } {
  let stopped = false;
  const answeredIds = new Set<string>();
  const loop = (async () => {
    while (!stopped) {
      for (const inst of world.live()) {
        try {
          const res = await fetch(`${inst.url}/api/permissions?session_id=${sessionId}`);
          if (res.status !== 200) continue;
          const { permissions } = (await res.json()) as { permissions: Array<{ id: string; call_id?: string }> };
          for (const p of permissions.filter((q) => !answeredIds.has(q.id))) {
            answeredIds.add(p.id);
            const r = await fetch(`${inst.url}/api/permissions/${p.id}`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ reply: "once" }),
            });
            if (r.status === 200) answers.set(p.call_id ?? p.id, (answers.get(p.call_id ?? p.id) ?? 0) + 1);
          }
        } catch {
          // The instance died under the request: the next round asks the others.
        }
      }
      await pause(150);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

export async function runTrial(world: World, seed: number, trial: number, opts: TrialOptions): Promise<TrialRecord> {
  const started = performance.now();
  const rng = trialRandom(seed, trial);
  const drawn = KINDS[rng.between(0, KINDS.length - 1)] as Kind;
  const kind: Kind = opts.faults ? drawn : "none";
  const ask = !kind.startsWith("run") && rng.random() < 0.3;
  const tag = `t${trial}`;
  const faultAfter = rng.between(0, 1_200);
  const cutMs = rng.between(200, 3_000);
  const prompt = `job ${tag}${ask ? ", behind an ask," : ""}: log two stages`;
  const rec: TrialRecord = { trial, kind, ask, tag, missed: false, violations: noViolations(), notes: [], phases: {}, ms: 0 };
  const deadline = started + opts.boundMs;
  const v = rec.violations;
  if (kind === "run-file" || kind === "run-sqlite") {
    await runLocalTrial(world, kind, rec, { prompt, faultAfter, started, deadline });
    return rec;
  }

  // Start the job: through `arbor run` in a process of its own, or posted to a live instance.
  let sessionId: string;
  let runProcess: ReturnType<World["rig"]["start"]> | undefined;
  let postedTo: Instance | undefined;
  if (kind === "run") {
    runProcess = world.rig.start(
      ["run", "--json", "--yes", ...world.rig.modelArgs(world.baseURL, world.workspace), prompt],
      world.home,
      world.db.url,
    );
    await runProcess.waitForStdout(/\n/);
    sessionId = (jsonLines(runProcess.stdout())[0] as RunEvent).session_id;
  } else {
    let id: string | undefined;
    for (let attempt = 0; id === undefined; attempt++) {
      const live = world.live();
      postedTo = live[rng.between(0, Math.max(0, live.length - 1))];
      try {
        if (!postedTo) throw new Error("no instance is up");
        // A post whose answer was lost (its instance killed, its link cut) may have queued the chat.
        id = attempt === 0 ? undefined : (await sessionsOfJob(world, tag))[0];
        if (id !== undefined) rec.notes.push(`a post whose answer was lost had queued the chat (session ${id})`);
        id ??= await postChat(postedTo.url, prompt);
      } catch (err) {
        if (attempt >= 40) throw err;
        await pause(250);
      }
    }
    sessionId = id;
  }
  rec.sessionId = sessionId;
  rec.phases.started = performance.now() - started;

  // The driver, once one holds the session; the watcher starts on another instance.
  const driver = kind === "run" ? undefined : await world.driverOf(sessionId, 5_000);
  const others = world.live().filter((i) => i !== driver && i !== postedTo);
  const firstWatcher = others[rng.between(0, Math.max(0, others.length - 1))] ?? world.live()[0];
  const pick = (attempt: number): Instance => {
    const live = world.live();
    if (attempt === 0 && firstWatcher) return firstWatcher;
    const pool = live.filter((i) => i.name !== firstWatcher?.name || attempt % 2 === 1);
    return (pool.length > 0 ? pool : live.length > 0 ? live : [...world.instances.values()])[
      attempt % Math.max(1, pool.length)
    ] as Instance;
  };
  const answers = new Map<string, number>();
  const asker = ask ? answerAsks(world, sessionId, answers) : undefined;
  const watching = follow(sessionId, pick, deadline);

  // The fault, at its seeded point.
  await pause(faultAfter);
  const faultAt = performance.now();
  let restart: Promise<void> = Promise.resolve();
  switch (kind) {
    case "run":
      if (runProcess?.child.exitCode !== null || runProcess.child.signalCode !== null) rec.missed = true;
      runProcess?.child.kill("SIGKILL");
      await runProcess?.result;
      break;
    case "instance":
      if (!driver) rec.notes.push("no instance drove the run within 5 s");
      else restart = world.killAndRestart(driver);
      break;
    case "watcher":
      if (firstWatcher) restart = world.killAndRestart(firstWatcher);
      break;
    case "backend":
      if (driver) rec.notes.push(`terminated ${await terminateBackends(world, driver)} backends of ${driver.name}`);
      break;
    case "netcut": {
      const proxy = driver && world.proxies.get(driver.name);
      if (proxy) {
        proxy.cut();
        restart = pause(cutMs).then(() => proxy.restore());
        rec.notes.push(`cut ${driver.name} from the database for ${cutMs} ms`);
      }
      break;
    }
    case "none":
      break;
  }
  rec.phases.fault = performance.now() - started;
  const loggedAtFault = await world.store
    .listEvents(sessionId, { after: 0, limit: 10_000 })
    .then((rs) => Math.max(0, ...rs.map((r) => r.id)))
    .catch(() => 0);

  const watched = await watching;
  rec.phases.watched = performance.now() - started;
  await asker?.stop();
  await restart;
  const events: Received[] = watched.events;
  if (opts.dropEvent && events.length > 2) events.splice(Math.floor(events.length / 2), 1);
  const end = events.findLast((e) => e.event.type === "done" || e.event.type === "error");
  if (end && end.at < faultAt) rec.missed = true;
  const next = events.find((e) => e.at >= faultAt && e.id > loggedAtFault);
  if (next && !rec.missed) rec.recoveryMs = next.at - faultAt;
  if (rec.recoveryMs !== undefined && rec.recoveryMs > 10_000) {
    // A slow recovery: what the instances said about the session, timed from the fault.
    for (const inst of world.everyInstance)
      for (const l of inst.lines)
        if (l.line.includes(sessionId) && l.at >= faultAt)
          rec.notes.push(`+${Math.round(l.at - faultAt)} ms ${inst.name}: ${l.line}`);
    rec.notes.push(
      `+${Math.round((next?.at ?? faultAt) - faultAt)} ms: the watcher got event ${next?.id} (${next?.event.type}) via ${next?.via}`,
    );
  }

  // The watcher against the session's event log.
  const logged = (await world.store.listEvents(sessionId, { after: 0, limit: 10_000 })).filter((r) => r.type.startsWith("run."));
  const got = events.map((e) => e.id);
  const want = new Set(logged.map((r) => r.id));
  const gotSet = new Set(got);
  const missing = logged.filter((r) => !gotSet.has(r.id));
  const gone = [...gotSet].filter((id) => !want.has(id));
  v.lost += missing.length + gone.length;
  if (missing.length > 0) rec.notes.push(`the watcher missed ${missing.map((r) => `${r.id}:${r.type}`).join(", ")}`);
  if (gone.length > 0) rec.notes.push(`events the watcher got are not in the log: ${gone.join(", ")}`);
  v.duplicated += got.length - gotSet.size;
  for (let i = 1; i < got.length; i++) if ((got[i] as number) < (got[i - 1] as number)) v.outOfOrder++;
  // A stream read to its end after the bound still counts: the run was not over in time.
  if (!end || end.at > deadline) {
    v.stuck++;
    const meta = await world.store.getSession(sessionId);
    rec.notes.push(
      `no done/error within ${opts.boundMs} ms (session ${meta?.status}, last event ${events.at(-1)?.event.type}${end ? ` after ${((end.at - started) / 1000).toFixed(1)} s` : ""}, ${watched.reconnects} reconnects)`,
    );
  }

  rec.phases.checked = performance.now() - started;
  // The journal: the prompt once, the answer at most once.
  const messages = (await world.store.getSnapshot(sessionId)).entries.filter(
    (e): e is Extract<Entry, { type: "message" }> => e.type === "message",
  );
  const says = (role: string, s: string) =>
    messages.filter((e) => e.message.role === role && JSON.stringify(e.message.content).includes(s)).length;
  const prompts = says("user", `job ${tag}`);
  const finals = says("assistant", `[${tag}] done.`);
  if (prompts === 0) {
    v.lost++;
    rec.notes.push("the journal does not hold the acknowledged prompt");
    if (end) rec.notes.push(`the stream ended with ${JSON.stringify(end.event).slice(0, 300)}`);
  }
  if (prompts > 1 || finals > 1) {
    v.duplicated++;
    rec.notes.push(`the journal holds the prompt ${prompts} times and the answer ${finals} times`);
  }

  // Effects: each marker at most once; each ask answered at most once.
  const effects = (await readFile(join(world.workspace, "effects.log"), "utf8").catch(() => "")).split("\n");
  for (const marker of [`${tag}-s0`, `${tag}-s1`]) {
    const n = effects.filter((l) => l === marker).length;
    if (n > 1) {
      v.effectTwice += n - 1;
      rec.notes.push(`${marker} ran ${n} times`);
    }
  }
  for (const [call, n] of answers)
    if (n > 1) {
      v.askTwice += n - 1;
      rec.notes.push(`the ask of ${call} was answered ${n} times`);
    }

  // Usable afterwards: a follow-up prompt on any instance completes.
  let usable = false;
  let last = "";
  const followUpUntil = performance.now() + 20_000;
  for (let attempt = 0; !usable && performance.now() < followUpUntil; attempt++) {
    const live = world.live();
    const inst = live[attempt % Math.max(1, live.length)];
    if (!inst) {
      await pause(250);
      continue;
    }
    const r = await chat(inst.url, `follow-up ${tag}`, sessionId).catch((err: unknown) => ({ status: 0, events: [], err }));
    usable = r.status === 200 && r.events.at(-1)?.type === "done";
    last = `${inst.name} answered ${r.status}, last event ${JSON.stringify(r.events.at(-1) ?? ("err" in r ? String(r.err) : ""))}`;
    if (!usable) await pause(300);
  }
  if (!usable) {
    v.unusable++;
    rec.notes.push(`the follow-up prompt failed: ${last}`);
  }
  // A violation: what the instances said about the session, and the journal's shape, to tell the path.
  if (Object.values(v).some((n) => n > 0)) {
    for (const inst of world.everyInstance)
      for (const l of inst.lines)
        if (l.line.includes(sessionId)) rec.notes.push(`+${Math.round(l.at - faultAt)} ms ${inst.name}: ${l.line}`);
    const shape = (await world.store.getSnapshot(sessionId)).entries.map((e) =>
      e.type === "message"
        ? `${e.message.role}${e.message.role === "assistant" ? `(${e.message.content.filter((c) => c.type === "tool-call").length} calls)` : ""}`
        : e.type === "custom"
          ? e.customType
          : e.type,
    );
    rec.notes.push(`journal: ${shape.join(" > ")}`);
    const holders = await sessionsOfJob(world, tag);
    if (holders.length !== 1) rec.notes.push(`sessions holding the job's prompt: ${holders.join(", ")}`);
  }
  rec.ms = performance.now() - started;
  rec.phases.usable = rec.ms;
  return rec;
}

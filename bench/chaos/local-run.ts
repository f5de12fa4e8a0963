import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Entry, openStore, type RunEvent } from "@arbor/core";
import { jsonLines, printedVersusLog } from "../../packages/cli/test/helpers/fault.js";
import type { TrialRecord } from "./record.js";
import type { World } from "./world.js";

/**
 * A trial of kill -9 of `arbor run` on a store of one machine (the file store, SQLite): the run is
 * killed at a seeded point, `arbor run --resume` takes it up in a new process, and a follow-up prompt
 * must complete. What the killed process printed was acknowledged to its user: it must be in the
 * session's event log, in order; the two processes together print each call's end and the run's
 * `done` once; each bash marker runs at most once.
 */

export type LocalKind = "run-file" | "run-sqlite";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runLocalTrial(
  world: World,
  kind: LocalKind,
  rec: TrialRecord,
  opts: { prompt: string; faultAfter: number; started: number; deadline: number },
): Promise<void> {
  const v = rec.violations;
  const { home, store } = kind === "run-file" ? world.fileStore() : world.sqliteStore();
  const spec = store ?? { kind: "file" as const, dir: home };
  const args = (more: string[]) => ["run", "--json", "--yes", ...world.rig.modelArgs(world.baseURL, world.workspace), ...more];

  const run = world.rig.start(args([opts.prompt]), home, store);
  await run.waitForStdout(/\n/);
  const sessionId = (jsonLines(run.stdout())[0] as RunEvent).session_id;
  rec.sessionId = sessionId;
  rec.phases.started = performance.now() - opts.started;
  await pause(opts.faultAfter);
  const faultAt = performance.now();
  if (run.child.exitCode !== null || run.child.signalCode !== null) rec.missed = true;
  run.child.kill("SIGKILL");
  await run.result;
  const printed = jsonLines(run.stdout());
  if (printed.some((e) => e.type === "done" || e.type === "error")) rec.missed = true;

  // The resume, in a new process, unless the run had ended before the kill.
  let resumed: RunEvent[] = [];
  if (!rec.missed) {
    const next = world.rig.start(args(["--session", sessionId, "--resume"]), home, store);
    const firstLine = next
      .waitForStdout(/\n/)
      .then(() => performance.now())
      .catch(() => undefined);
    const bound = Math.max(1_000, opts.deadline - performance.now());
    const ended = await Promise.race([next.result.then(() => true), pause(bound).then(() => false)]);
    if (!ended) next.child.kill("SIGKILL");
    const out = await next.result;
    resumed = jsonLines(out.stdout);
    const first = await firstLine;
    if (first !== undefined && resumed[0]?.type !== "error") rec.recoveryMs = first - faultAt;
    // Killed after the run had stored its outcome but before it printed its end: the session is
    // finished, and a resume is rightly refused (the ending is logged by the next reader's repair).
    const finished =
      ended &&
      resumed.length === 1 &&
      (resumed[0] as { code?: string }).code === "session_not_interrupted" &&
      (await withLocal(spec, (s) => s.getSession(sessionId)))?.status === "completed";
    if (finished) {
      rec.missed = true;
      rec.notes.push("killed after the run had finished, before it printed its end");
    } else if (!ended || resumed.at(-1)?.type !== "done") {
      v.stuck++;
      rec.notes.push(
        `the resume did not end with done (exit ${out.code}, last ${JSON.stringify(resumed.at(-1) ?? "")}, ${out.stderr.slice(0, 200)})`,
      );
    }
  }

  rec.phases.fault = faultAt - opts.started;
  rec.phases.watched = performance.now() - opts.started;

  // What the killed process printed is in the log, in order.
  const logged = await withLocal(spec, (s) => s.listEvents(sessionId, { after: 0, limit: 10_000 }));
  const against = printedVersusLog(printed, logged);
  v.lost += against.lost.length;
  v.outOfOrder += against.outOfOrder.length;
  for (const key of against.lost) rec.notes.push(`printed ${key} before the kill, not in the log`);
  for (const key of against.outOfOrder) rec.notes.push(`printed ${key} out of the log's order`);
  // Once across both processes: each call's end, and the run's done.
  const seen = new Map<string, number>();
  for (const e of [...printed, ...resumed]) {
    if (e.type !== "tool_end" && e.type !== "done") continue;
    const key = `${e.type}|${String((e as { call_id?: string }).call_id ?? "")}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const [key, n] of seen)
    if (n > 1) {
      v.duplicated += n - 1;
      rec.notes.push(`${key.slice(0, 80)} printed ${n} times`);
    }

  // The journal: the prompt once, the answer at most once; each marker at most once.
  const messages = (await withLocal(spec, (s) => s.getSnapshot(sessionId))).entries.filter(
    (e: Entry): e is Extract<Entry, { type: "message" }> => e.type === "message",
  );
  const says = (role: string, s: string) =>
    messages.filter((e) => e.message.role === role && JSON.stringify(e.message.content).includes(s)).length;
  if (says("user", `job ${rec.tag}`) !== 1 || says("assistant", `[${rec.tag}] done.`) > 1) {
    v.duplicated += says("user", `job ${rec.tag}`) > 1 ? 1 : 0;
    v.lost += says("user", `job ${rec.tag}`) === 0 ? 1 : 0;
    rec.notes.push(`the journal holds the prompt ${says("user", `job ${rec.tag}`)} times`);
  }
  const effects = (await readFile(join(world.workspace, "effects.log"), "utf8").catch(() => "")).split("\n");
  for (const marker of [`${rec.tag}-s0`, `${rec.tag}-s1`]) {
    const n = effects.filter((l) => l === marker).length;
    if (n > 1) {
      v.effectTwice += n - 1;
      rec.notes.push(`${marker} ran ${n} times`);
    }
  }

  // Usable afterwards: a follow-up prompt on the session completes.
  const follow = await world.rig.start(args(["--session", sessionId, `follow-up ${rec.tag}`]), home, store).result;
  if (follow.code !== 0 || jsonLines(follow.stdout).at(-1)?.type !== "done") {
    v.unusable++;
    rec.notes.push(`the follow-up failed (exit ${follow.code}): ${follow.stderr.slice(0, 300)}`);
  }
  rec.ms = performance.now() - opts.started;
  rec.phases.usable = rec.ms;
}

async function withLocal<T>(
  spec: string | { kind: "file"; dir: string },
  fn: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
): Promise<T> {
  const store = await openStore(spec);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

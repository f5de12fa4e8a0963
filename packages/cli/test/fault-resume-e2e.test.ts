import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Entry, RunEvent, Snapshot } from "@arbor/core";
import { delay, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { RESUMED_INTERRUPTED_OUTPUT } from "../../core/src/loop/wake.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, jsonLines, printedVersusLog, seededRandom, storeCases } from "./helpers/fault.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { withStore } from "./helpers/seed.js";

/**
 * kill -9 of `arbor run` at random points of a scripted multi-step run that mixes tools safe to
 * repeat (read, glob, grep, list) with one that is not (bash appending a line to a file), then
 * `arbor run --resume` by a new runtime, on every store. The killed run is a real process (kill -9
 * is the point); the uninterrupted baseline and each resume run in this process: what is checked is
 * the store the dead process left and what a fresh runtime makes of it, which needs no process of its
 * own, and that halves the processes started per trial. Each trial must end as the uninterrupted
 * run ends: nothing written lost, nothing twice, no bash line twice, the same final context except
 * for calls answered as interrupted.
 */

const e2e = setupCliE2e("arbor-fault-resume-", { workspace: false });

const { seed, between } = seededRandom("ARBOR_FAULT_SEED");
const TRIALS = Number(process.env.ARBOR_RESUME_TRIALS ?? 30);
const CONCURRENCY = Number(process.env.ARBOR_RESUME_CONCURRENCY ?? 4);

beforeAll(() => console.log(`kill and resume trials: seed ${seed}`));

const PROMPT = "survey the notes and log each stage";
const bash = (turn: number) => toolCall("bash", { command: `echo s${turn} >> effects.log` }, { id: `t${turn}_bash` });

/**
 * The run, answer by answer, keyed on how many answers the request already holds so a resumed run
 * is answered as the first one would have been. Title requests offer no tools.
 */
function step(call: StepContext): readonly ScriptAction[] {
  const body = (call.source === "http" ? call.body : {}) as { tools?: unknown[]; messages?: Array<{ role: string }> };
  if (!body.tools) return [text("Survey")];
  const turn = (body.messages ?? []).filter((m) => m.role === "assistant").length;
  const pace = delay(between(0, 10));
  switch (turn) {
    case 0:
      return [text("Looking first. "), pace, toolCall("read", { path: "notes.txt" }, { id: "t0_read" }), bash(0)];
    case 1:
      return [pace, toolCall("glob", { pattern: "*.txt" }, { id: "t1_glob" })];
    case 2:
      return [text("Logging. "), pace, bash(2)];
    case 3:
      return [toolCall("grep", { pattern: "two" }, { id: "t3_grep" }), pace, toolCall("list", {}, { id: "t3_list" })];
    case 4:
      return [pace, bash(4), toolCall("read", { path: "notes.txt", offset: 2 }, { id: "t4_read" })];
    default:
      return [text("All "), pace, text("done.")];
  }
}

type MessageEntry = Extract<Entry, { type: "message" }>;
const messages = (snap: Snapshot) =>
  snap.activePath.flatMap((id) => {
    const e = snap.entries.find((x) => x.id === id);
    return e?.type === "message" ? [e as MessageEntry] : [];
  });

/**
 * The context as the model reads it, one line per message; the results of one step sorted, since
 * calls of a step finish in any order. A result answered as interrupted reads `<interrupted>`.
 */
function contextLines(snap: Snapshot): string[] {
  const lines: string[] = [];
  let results: string[] = [];
  const flush = () => {
    lines.push(...results.sort());
    results = [];
  };
  for (const { message: m } of messages(snap)) {
    if (m.role === "tool") {
      for (const p of m.content) {
        const value = (p.output as { value: unknown }).value;
        results.push(`tool ${p.toolCallId}: ${value === RESUMED_INTERRUPTED_OUTPUT ? "<interrupted>" : JSON.stringify(value)}`);
      }
      continue;
    }
    flush();
    const parts = m.content.map((p) =>
      p.type === "text" ? p.text : p.type === "tool-call" ? `[${p.toolCallId} ${JSON.stringify(p.input)}]` : "",
    );
    lines.push(`${m.role}: ${parts.join("")}`);
  }
  flush();
  return lines;
}

/** Equal to the uninterrupted run's context, where a result answered as interrupted may stand for any. */
function sameContext(got: string[], want: string[]): boolean {
  if (got.length !== want.length) return false;
  return got.every((line, i) => {
    if (line === want[i]) return true;
    const interrupted = /^tool (\S+): <interrupted>$/.exec(line);
    return interrupted !== null && want[i]?.startsWith(`tool ${interrupted[1]}: `) === true;
  });
}

interface Figures {
  trials: number;
  resumed: number;
  /** Kills that came after the run had recorded its end: nothing to resume, checked all the same. */
  endedFirst: number;
  lost: number;
  duplicated: number;
  unsafeTwice: number;
  wrongContext: number;
  failedResumes: number;
  /** Calls a resume found without a result: run again (safe to repeat) or answered as interrupted. */
  rerun: number;
  answeredInterrupted: number;
}

async function snapshotOf(store: string | undefined, home: string, id: string): Promise<Snapshot | string> {
  return withStore(store ?? { kind: "file", dir: home }, (s) => s.getSnapshot(id)).catch((err: unknown) => String(err));
}

function duplicates(snap: Snapshot): number {
  const ids = snap.entries.map((e) => e.id);
  const resultIds = snap.entries.flatMap((e) =>
    e.type === "message" && e.message.role === "tool" ? e.message.content.map((p) => p.toolCallId) : [],
  );
  const users = messages(snap).filter((e) => e.message.role === "user").length;
  return ids.length - new Set(ids).size + (resultIds.length - new Set(resultIds).size) + (users - 1);
}

describe.each(storeCases(() => e2e.dir))("kill -9 of arbor run, then arbor run --resume, on the %s store", (name, makeStore) => {
  it(`${TRIALS} random kills each resume to the uninterrupted run's end`, async () => {
    const { store, drop } = await makeStore();
    const rig = new FaultRig(() => e2e.dir);
    const home = join(e2e.dir, `home-${name}`);
    const storeArgs = store ? ["--store", store, "--create"] : [];
    const figures: Figures = {
      trials: 0,
      resumed: 0,
      endedFirst: 0,
      lost: 0,
      duplicated: 0,
      unsafeTwice: 0,
      wrongContext: 0,
      failedResumes: 0,
      rerun: 0,
      answeredInterrupted: 0,
    };
    const started = Date.now();
    try {
      const baseURL = await rig.fakeServer(Array.from({ length: 4000 }, () => step));
      const workspace = async (n: string) => {
        const ws = join(e2e.dir, `${name}-${n}`);
        await mkdir(ws);
        await writeFile(join(ws, "notes.txt"), "one\ntwo\nthree\n");
        return ws;
      };
      const runArgs = (ws: string) => ["run", "--json", "--yes", ...storeArgs, ...rig.modelArgs(baseURL, ws)];

      // The uninterrupted run: the context every trial must end with, and how many lines it prints.
      const baseWs = await workspace("baseline");
      const base = await runArborInProcess([...runArgs(baseWs), PROMPT], { home });
      expect(base.code, base.stderr).toBe(0);
      const baseEvents = jsonLines(base.stdout);
      const baseSnap = await snapshotOf(store, home, (baseEvents[0] as RunEvent).session_id);
      if (typeof baseSnap === "string") throw new Error(baseSnap);
      const want = contextLines(baseSnap);
      expect(want.at(-1)).toBe("assistant: All done.");
      expect((await readFile(join(baseWs, "effects.log"), "utf8")).split("\n").filter(Boolean)).toEqual(["s0", "s2", "s4"]);
      const lines = baseEvents.length;

      // Kill once the run printed a random number of events: progress it made, not time passed. The
      // points are drawn first so a seed replays them whatever order the concurrent trials end in.
      // The run's last events (the final answer's and `done`) come in one logged batch and the process
      // exits right after it: a kill drawn among them lands after the end, so the points stop short of it.
      const killAt = Array.from({ length: TRIALS }, () => between(2, Math.max(2, lines - 6)));
      const trial = async (t: number) => {
        figures.trials++;
        const ws = await workspace(`trial-${t}`);
        const run = rig.start([...runArgs(ws), PROMPT], home, undefined);
        const at = killAt[t] as number;
        await run.waitForStdout(new RegExp(`^(?:[^\\n]*\\n){${at}}`)).catch(() => undefined);
        run.child.kill("SIGKILL");
        const events = jsonLines((await run.result).stdout);
        const id = (events[0] as RunEvent).session_id;
        const reported = events.filter((e) => e.type === "tool_end").map((e) => (e as { call_id: string }).call_id);
        const before = await snapshotOf(store, home, id);
        if (typeof before === "string") throw new Error(`trial ${t}: the killed session does not open: ${before}`);
        // What the killed process printed was acknowledged: it is in the session's event log, in order.
        const printed = printedVersusLog(
          events,
          await withStore(store ?? { kind: "file", dir: home }, (s) => s.listEvents(id, { after: 0, limit: 10_000 })),
        );

        if (before.session.status === "interrupted") {
          const next = await runArborInProcess(
            ["run", "--json", "--yes", "--session", id, "--resume", ...storeArgs, ...rig.modelArgs(baseURL, ws)],
            { home },
          );
          const resumedEvents = jsonLines(next.stdout);
          const ok = next.code === 0 && resumedEvents.at(-1)?.type === "done";
          const called = new Set(
            messages(before).flatMap((e) =>
              e.message.role === "assistant"
                ? e.message.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []))
                : [],
            ),
          );
          for (const e of resumedEvents) {
            if (e.type !== "tool_end" || !called.has((e as { call_id: string }).call_id)) continue;
            if ((e as { output?: string }).output === RESUMED_INTERRUPTED_OUTPUT) figures.answeredInterrupted++;
            else figures.rerun++;
          }
          if (ok) figures.resumed++;
          else {
            figures.failedResumes++;
            console.log(`  trial ${t}: the resume failed (exit ${next.code}): ${next.stderr}`);
          }
        } else figures.endedFirst++;

        const after = await snapshotOf(store, home, id);
        if (typeof after === "string") throw new Error(`trial ${t}: the resumed session does not open: ${after}`);
        // Everything the killed process wrote is still there, unchanged.
        const kept = new Map(after.entries.map((e) => [e.id, JSON.stringify(e)]));
        const lost =
          before.entries.filter((e) => kept.get(e.id) !== JSON.stringify(e)).length +
          reported.filter((c) => !after.entries.some((e) => JSON.stringify(e).includes(`"toolCallId":"${c}"`))).length +
          printed.lost.length +
          printed.outOfOrder.length;
        const dup = duplicates(after);
        const log = (await readFile(join(ws, "effects.log"), "utf8").catch(() => "")).split("\n").filter(Boolean);
        const twice = log.length - new Set(log).size;
        const got = contextLines(after);
        const same = sameContext(got, want) && after.session.status === "completed";
        figures.lost += lost;
        figures.duplicated += dup;
        figures.unsafeTwice += twice;
        if (!same) figures.wrongContext++;
        if (lost + dup + twice > 0 || !same) {
          console.log(
            `  trial ${t} (killed after ${at} lines): ${lost} lost, ${dup} twice, ${twice} bash twice, status ${after.session.status}`,
          );
          if (printed.lost.length + printed.outOfOrder.length > 0)
            console.log(`    printed but not logged in order: ${[...printed.lost, ...printed.outOfOrder].join("; ")}`);
          if (!same) console.log(`    got:\n      ${got.join("\n      ")}\n    want:\n      ${want.join("\n      ")}`);
        }
      };
      // A few trials at a time: each is a short process, mostly start-up, and a resume.
      let next = 0;
      const worker = async () => {
        while (next < TRIALS) await trial(next++);
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      await rig.cleanup();
      await drop();
    }
    console.log(
      `kill -9 and resume (${name} store): ${figures.trials} trials in ${Math.round((Date.now() - started) / 1000)} s, ${figures.resumed} resumed, ${figures.endedFirst} ended before the kill, ${figures.lost} lost, ${figures.duplicated} duplicated, ${figures.unsafeTwice} unsafe calls run twice, ${figures.wrongContext} wrong contexts, ${figures.failedResumes} failed resumes; open calls re-run ${figures.rerun}, answered as interrupted ${figures.answeredInterrupted}`,
    );
    expect(figures).toMatchObject({ trials: TRIALS, lost: 0, duplicated: 0, unsafeTwice: 0, wrongContext: 0, failedResumes: 0 });
    // Most kills land mid-run, so most trials exercise a resume.
    expect(figures.resumed).toBeGreaterThanOrEqual(Math.ceil(TRIALS * 0.8));
  }, 420_000);
});

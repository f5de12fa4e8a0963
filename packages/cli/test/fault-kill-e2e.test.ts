import type { Entry, RunEvent, Snapshot } from "@arbor/core";
import { SUMMARY_SYSTEM_PROMPT } from "@arbor/core/context";
import { delay, hang, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningCli } from "./helpers/cli.js";
import { writeSmallWindowWorkspace } from "./helpers/compaction.js";
import { setupCliE2e } from "./helpers/e2e.js";
import {
  chat,
  chatUntilToken,
  FaultRig,
  jsonLines,
  seededRandom,
  storeCases,
  unpairedCalls,
  userTexts,
} from "./helpers/fault.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { withStore } from "./helpers/seed.js";

/**
 * kill -9 of `arbor run` at random points of a run (streaming, between steps, during automatic
 * compaction, while `explore` runs sub-traces) and of `arbor serve` during a chat, on every store.
 * After each kill the session must open, keep what the run reported written, read as interrupted
 * (sub-traces too), and continue with a new prompt whose request pairs every tool call.
 */

const e2e = setupCliE2e("arbor-fault-kill-", { files: { "notes.txt": "one\ntwo\nthree\n" } });

/** The points are random; the seed is printed so a failing trial can be replayed with ARBOR_FAULT_SEED. */
const { seed, between } = seededRandom("ARBOR_FAULT_SEED");
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  await writeSmallWindowWorkspace(e2e.workspace);
  console.log(`fault kill trials: seed ${seed}`);
});

const freshHome = () => e2e.freshDir("home");

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>;
}
const bodyOf = (call: StepContext) => (call.source === "http" ? call.body : { messages: [] }) as ChatBody;
const turnOf = (call: StepContext) => bodyOf(call).messages.filter((m) => m.role === "assistant").length;

/**
 * A run to kill: what the fake provider answers, the prompt, and when to kill once the run started
 * (resolves at a random point of the phase under test, or when the run already ended).
 */
interface Scenario {
  name: string;
  prompt: string;
  steps: (call: StepContext) => readonly ScriptAction[];
  killPoint(run: RunningCli): Promise<void>;
}

/** Resolves when `signal` fires or the run exits, whichever is first. */
function signalled(run: RunningCli): { fire(): void; wait: Promise<void> } {
  let fire = () => {};
  const wait = new Promise<void>((resolve) => {
    fire = resolve;
    void run.result.then(() => resolve());
  });
  return { fire: () => fire(), wait };
}

const untilPrinted = (run: RunningCli, pattern: RegExp) => run.waitForStdout(pattern).catch(() => undefined);

function streaming(): Scenario {
  const chunks: ScriptAction[] = Array.from({ length: 12 }, (_, i) => [text(`part ${i} `), delay(15)]).flat();
  return {
    name: "streaming",
    prompt: "tell me a long story",
    steps: () => [...chunks, hang()],
    killPoint: async (run) => {
      await untilPrinted(run, /"type":"token"/);
      await pause(between(0, 200));
    },
  };
}

function betweenSteps(): Scenario {
  const after = between(1, 3);
  return {
    name: "between steps",
    prompt: "read notes.txt a few times",
    steps: (call) => (turnOf(call) < 4 ? [toolCall("read", { path: "notes.txt" })] : [text("Read them all."), hang()]),
    killPoint: async (run) => {
      await untilPrinted(run, new RegExp(`(?:"type":"tool_end"[\\s\\S]*?){${after}}`));
      await pause(between(0, 30));
    },
  };
}

function compaction(): Scenario {
  const summaryArrived: { fire(): void }[] = [];
  return {
    name: "compaction",
    prompt: "read big.txt again and again",
    steps: (call) => {
      if (bodyOf(call).messages[0]?.content === SUMMARY_SYSTEM_PROMPT) {
        for (const s of summaryArrived) s.fire();
        return [delay(between(0, 50)), text("## Goal\nRead big.txt"), hang()];
      }
      return turnOf(call) < 30 ? [toolCall("read", { path: "big.txt", offset: turnOf(call) + 1 })] : [text("Done."), hang()];
    },
    killPoint: async (run) => {
      const s = signalled(run);
      summaryArrived.push(s);
      await s.wait;
      await pause(between(0, 80));
    },
  };
}

function explore(): Scenario {
  const branchStarted: { fire(): void }[] = [];
  return {
    name: "explore",
    prompt: "main: compare two designs",
    steps: (call) => {
      const body = bodyOf(call);
      const firstUser = JSON.stringify(body.messages.find((m) => m.role === "user")?.content ?? "");
      if (firstUser.includes("main: compare two designs")) {
        return turnOf(call) === 0
          ? [toolCall("explore", { branches: ["look at A", "look at B"], background: "Two designs." })]
          : [text("A it is.")];
      }
      for (const s of branchStarted) s.fire();
      return turnOf(call) === 0 ? [toolCall("list", {})] : [text("Branch report: "), delay(between(0, 100)), hang()];
    },
    killPoint: async (run) => {
      const s = signalled(run);
      branchStarted.push(s);
      await s.wait;
      await pause(between(0, 150));
    },
  };
}

interface Figures {
  trials: number;
  lost: number;
  unusable: number;
  stuckRunning: number;
  /** Kills that found the process already gone (every scenario ends in a hang, so none should). */
  missed: number;
}

function toolResultIds(snap: Snapshot): Set<string> {
  return new Set(
    snap.entries.flatMap((e: Entry) =>
      e.type === "message" && e.message.role === "tool" && Array.isArray(e.message.content)
        ? e.message.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : []))
        : [],
    ),
  );
}

/** The session and the sessions left running, read by opening the store in this process as a next process would. */
async function inspect(home: string, store: string | undefined, id: string) {
  return withStore(store ?? { kind: "file", dir: home }, async (s) => ({
    snap: await s.getSnapshot(id).catch((err: unknown) => String(err)),
    running: (await s.listSessions({ limit: 1000 })).sessions.filter((m) => m.status === "running"),
  }));
}

/** One kill of `arbor run` and the checks after it; adds to `figures`. */
async function killTrial(
  rig: FaultRig,
  scenario: Scenario,
  home: string,
  store: string | undefined,
  figures: Figures,
): Promise<void> {
  figures.trials++;
  const baseURL = await rig.fakeServer(Array.from({ length: 80 }, () => scenario.steps));
  const run = rig.start(["run", "--json", "--yes", ...rig.modelArgs(baseURL), "--max-turns", "40", scenario.prompt], home, store);
  await run.waitForStdout(/\n/);
  await scenario.killPoint(run);
  if (run.child.exitCode !== null || run.child.signalCode !== null) figures.missed++;
  run.child.kill("SIGKILL");
  const events = jsonLines((await run.result).stdout);
  const id = (events[0] as RunEvent).session_id;
  // What the run reported: its prompt once the model answered, and each tool result it announced.
  const reportedCalls = events
    .filter((e) => e.type === "tool_end" && e.session_id === id)
    .map((e) => (e as { call_id: string }).call_id);
  const promptReported = events.some((e) => e.type === "token" || e.type === "tool_start");

  const seen = await inspect(home, store, id);
  if (typeof seen.snap === "string") {
    figures.unusable++;
    console.log(`  ${scenario.name}: the session does not open: ${seen.snap}`);
    return;
  }
  const kept = toolResultIds(seen.snap);
  const lost =
    reportedCalls.filter((c) => !kept.has(c)).length +
    (promptReported && !userTexts(seen.snap).includes(scenario.prompt) ? 1 : 0);
  figures.lost += lost;
  const running = seen.running;
  figures.stuckRunning += running.length;

  await rig.fakeServer(Array.from({ length: 20 }, () => [text("continued")]));
  const storeArgs = store ? ["--store", store, "--create"] : [];
  // In this process, as the resume test continues its sessions: what is checked is the session the kill
  // left, not a process of the continuing run; starting one would take most of the trial's time.
  const next = await runArborInProcess(
    ["run", "--json", "--yes", "--session", id, ...storeArgs, ...rig.modelArgs(rig.fake!.baseURL), "go on"],
    { home },
  );
  const unpaired = rig.chatRequests().reduce((n: number, body) => n + unpairedCalls(body), 0);
  const done = next.code === 0 && jsonLines(next.stdout).at(-1)?.type === "done";
  if (!done || unpaired > 0) {
    figures.unusable++;
    console.log(`  ${scenario.name}: continuing failed (exit ${next.code}, ${unpaired} unpaired calls): ${next.stderr}`);
  }
  if (lost > 0 || running.length > 0)
    console.log(`  ${scenario.name}: ${lost} lost, still running: ${running.map((s) => s.id).join(", ")}`);
}

describe.each(storeCases(() => e2e.dir))("random kill -9 of arbor run on the %s store", (name, makeStore) => {
  it("every session opens, keeps what was reported written, reads as interrupted and continues", async () => {
    const rounds = Number(process.env.ARBOR_FAULT_ROUNDS ?? 1);
    const figures: Figures = { trials: 0, lost: 0, unusable: 0, stuckRunning: 0, missed: 0 };
    const { store, drop } = await makeStore();
    const rig = new FaultRig(() => e2e.workspace);
    try {
      for (let r = 0; r < rounds; r++) {
        for (const scenario of [streaming(), betweenSteps(), compaction(), explore()]) {
          const started = Date.now();
          await killTrial(rig, scenario, freshHome(), store, figures);
          console.log(`  ${scenario.name}: ${Date.now() - started} ms`);
        }
      }
    } finally {
      await rig.cleanup();
      await drop();
    }
    console.log(
      `kill -9 of arbor run (${name} store): ${figures.trials} trials, ${figures.lost} lost entries, ${figures.unusable} unusable sessions, ${figures.stuckRunning} stuck running, ${figures.missed} kills after the end`,
    );
    expect(figures).toEqual({ trials: rounds * 4, lost: 0, unusable: 0, stuckRunning: 0, missed: 0 });
  }, 180_000);
});

describe.each(storeCases(() => e2e.dir))("kill -9 of arbor serve on the %s store", (name, makeStore) => {
  it("a new server on the same store continues the session the dead one was answering", async () => {
    const { store, drop } = await makeStore();
    const figures: Figures = { trials: 1, lost: 0, unusable: 0, stuckRunning: 0, missed: 0 };
    const rig = new FaultRig(() => e2e.workspace);
    try {
      // The new server wakes the cut-off run at start-up (one answer), then the next chat gets its own.
      const baseURL = await rig.fakeServer([
        [text("first")],
        [text("Working on it "), delay(between(0, 100)), hang()],
        [text("after")],
        [text("after")],
      ]);
      const home = freshHome();
      const a = await rig.serve(baseURL, home, store);
      const first = await chat(a.url, "start");
      const id = first.events[0]?.session_id as string;
      await chatUntilToken(a.url, "take your time", id);
      await pause(between(0, 100));
      a.cli.child.kill("SIGKILL");
      await a.cli.result;

      const seen = await inspect(home, store, id);
      if (typeof seen.snap === "string") figures.unusable++;
      else figures.lost += ["start", "take your time"].filter((t) => !userTexts(seen.snap as Snapshot).includes(t)).length;
      figures.stuckRunning += seen.running.length;
      const b = await rig.serve(baseURL, home, store);
      // The session is the resumed run's until it ends; the chat comes after.
      await b.cli.waitForStderr(/resumed and finished/);
      const after = await chat(b.url, "after", id);
      const unpaired = rig.chatRequests().reduce((n: number, body) => n + unpairedCalls(body), 0);
      if (after.status !== 200 || after.events.at(-1)?.type !== "done" || unpaired > 0) figures.unusable++;
      b.cli.child.kill("SIGTERM");
      expect((await b.cli.result).code).toBe(0);
    } finally {
      await rig.cleanup();
      await drop();
    }
    console.log(
      `kill -9 of arbor serve (${name} store): ${figures.trials} trials, ${figures.lost} lost entries, ${figures.unusable} unusable sessions, ${figures.stuckRunning} stuck running, ${figures.missed} kills after the end`,
    );
    expect(figures).toEqual({ trials: 1, lost: 0, unusable: 0, stuckRunning: 0, missed: 0 });
  }, 60_000);
});

import type { Entry } from "@arbor/core";
import { hang, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { RESUMED_INTERRUPTED_OUTPUT } from "../../core/src/loop/wake.js";
import { arbor } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, jsonLines } from "./helpers/fault.js";
import { withStore } from "./helpers/seed.js";

/**
 * kill -9 of `arbor run` while two explore branches and a delegate are each mid-run (their second
 * model call under way), then `arbor run --resume` in a new process: every branch's session goes
 * on from its journal (its first tool result kept, no second prompt) and the parent reads their
 * real reports, not "interrupted".
 */

const e2e = setupCliE2e("arbor-subtrace-resume-", { files: { "a.txt": "alpha\n", "b.txt": "beta\n" } });
const rig = new FaultRig(() => e2e.workspace);
afterEach(() => rig.cleanup());

const PROMPT = "main: find the bug and fix it";
const TASKS = { a: "look at A", b: "look at B", c: "fix C" } as const;

type ChatMessage = { role: string; content?: string | Array<{ type: string; text?: string }> };

const textOf = (m: ChatMessage) =>
  typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");

/** Who asks (the main run or a branch, by its task: the last user message) and how many answers it has had since. */
function caller(call: StepContext): { who: string; turn: number; messages: ChatMessage[] } | undefined {
  const body = (call.source === "http" ? call.body : {}) as { tools?: unknown[]; messages?: ChatMessage[] };
  if (!body.tools) return undefined;
  const messages = body.messages ?? [];
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === "user" && !textOf(m).startsWith("<system-reminder>")) last = i;
  });
  const task = last < 0 ? "" : textOf(messages[last]!);
  const who = Object.values(TASKS).find((t) => task.endsWith(t)) ?? (task.includes(PROMPT) ? "main" : "unknown");
  return { who, turn: messages.slice(last + 1).filter((m) => m.role === "assistant").length, messages };
}

/** Before the kill: the main run starts the branches; each lists once, then its next call hangs. */
function firstProcess(onHang: () => void) {
  return (call: StepContext): readonly ScriptAction[] => {
    const c = caller(call);
    if (!c) return [text("Bug hunt")];
    if (c.who === "main") {
      return [
        toolCall("explore", { branches: [TASKS.a, TASKS.b] }, { id: "ex1" }),
        toolCall("delegate", { task: TASKS.c }, { id: "dl1" }),
      ];
    }
    if (c.turn === 0) return [toolCall("list", {}, { id: `list_${c.who.replaceAll(" ", "_")}` })];
    onHang();
    return [hang()];
  };
}

/** After the kill: each branch reports (it must already hold its list result); the main run sums up. */
function secondProcess(seen: Array<{ who: string; turn: number; sawList: boolean }>) {
  return (call: StepContext): readonly ScriptAction[] => {
    const c = caller(call);
    if (!c) return [text("Bug hunt")];
    seen.push({ who: c.who, turn: c.turn, sawList: c.messages.some((m) => m.role === "tool") });
    if (c.who === "main") return [text("Found it in A; C is fixed.")];
    return [text(`${c.who}: report after the restart.`)];
  };
}

const fileStore = (home: string) => ({ kind: "file" as const, dir: home });

describe("kill -9 of arbor run while its sub-agents work, then arbor run --resume", () => {
  it("resumes both explore branches and the delegate from their journals and gives the parent their reports", async () => {
    const home = e2e.freshDir("home");
    let hanging = 0;
    let allHanging: () => void = () => {};
    const three = new Promise<void>((resolve) => {
      allHanging = resolve;
    });
    const steps = Array.from({ length: 20 }, () =>
      firstProcess(() => {
        if (++hanging === 3) allHanging();
      }),
    );
    const baseURL = await rig.fakeServer(steps);
    const running = rig.start(["run", "--json", ...rig.modelArgs(baseURL), PROMPT], home);
    await three;
    running.child.kill("SIGKILL");
    await running.result;

    const { parent, subs } = await withStore(fileStore(home), async (s) => {
      const top = (await s.listSessions({ parentSessionId: null })).sessions;
      expect(top).toHaveLength(1);
      const id = top[0]!.id;
      const children = (await s.listSessions({ parentSessionId: id })).sessions;
      return { parent: top[0]!, subs: children };
    });
    expect(parent.status).toBe("interrupted");
    expect(subs.map((s) => s.status)).toEqual(["interrupted", "interrupted", "interrupted"]);

    const seen: Array<{ who: string; turn: number; sawList: boolean }> = [];
    const resumedURL = await rig.fakeServer(Array.from({ length: 10 }, () => secondProcess(seen)));
    const r = await arbor(["run", "--json", "--session", parent.id, "--resume", ...rig.modelArgs(resumedURL)], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).at(-1)?.type).toBe("done");

    // Each branch was asked once more, holding its first tool result: continued, not restarted.
    const branches = seen.filter((s) => s.who !== "main");
    expect(branches.map((s) => s.who).sort()).toEqual(Object.values(TASKS).sort());
    for (const b of branches) expect(b).toMatchObject({ turn: 1, sawList: true });
    expect(seen.filter((s) => s.who === "main")).toHaveLength(1);

    await withStore(fileStore(home), async (s) => {
      expect((await s.getSession(parent.id))?.status).toBe("completed");
      for (const sub of subs) {
        expect((await s.getSession(sub.id))?.status).toBe("completed");
        const path = await s.getActivePath(sub.id);
        const users = path.filter((e) => e.type === "message" && e.message.role === "user");
        expect(users).toHaveLength(1);
      }
      const path: Entry[] = await s.getActivePath(parent.id);
      const outputs = Object.fromEntries(
        path.flatMap((e) =>
          e.type === "message" && e.message.role === "tool"
            ? e.message.content.map((p) => [p.toolCallId, (p.output as { value: string }).value] as const)
            : [],
        ),
      );
      expect(outputs.ex1).toContain(`${TASKS.a}: report after the restart.`);
      expect(outputs.ex1).toContain(`${TASKS.b}: report after the restart.`);
      expect(outputs.dl1).toContain(`${TASKS.c}: report after the restart.`);
      expect(JSON.stringify(path)).not.toContain(RESUMED_INTERRUPTED_OUTPUT);
      expect(path.filter((e) => e.type === "subagent_batch")).toHaveLength(2);
      expect(path.filter((e) => e.type === "subagent_result")).toHaveLength(3);
    });
    // Two arbor processes start one after the other; under load each takes seconds to start.
  }, 120_000);
});

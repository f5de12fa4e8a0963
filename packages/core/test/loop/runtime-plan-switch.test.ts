import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { AGENT_CHANGE_ENTRY_TYPE, sessionAgent } from "../../src/agents/mode-switch.js";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import { parseCustomEntry } from "../../src/custom-entries.js";
import { evaluateRequest } from "../../src/permissions/permission.js";
import { collect, harness } from "./harness.js";

/**
 * `plan_enter` and `plan_exit` switch the session into and out of the plan agent: the switch is
 * recorded in the session, ends the run, and the session's next run goes on as the agent switched to.
 */

const offered = (model: ReturnType<typeof scriptedModel>, call: number) =>
  (model.calls[call]?.options.tools ?? []).map((t) => t.name);

describe("plan_enter / plan_exit", () => {
  it("the presets imply the tools: build may enter, plan may exit only when the user approves, others neither", () => {
    const decide = (agent: keyof typeof BUILTIN_AGENTS, permission: string) =>
      evaluateRequest(agentPermissions({ agent: BUILTIN_AGENTS[agent] }), { permission, patterns: ["*"] }).action;
    expect([decide("build", "plan_enter"), decide("build", "plan_exit")]).toEqual(["allow", "deny"]);
    expect([decide("plan", "plan_enter"), decide("plan", "plan_exit")]).toEqual(["deny", "ask"]);
    expect([decide("general", "plan_enter"), decide("general", "question")]).toEqual(["deny", "deny"]);
    expect(decide("build", "question")).toBe("allow");
  });

  it("build enters plan mode: recorded, the run ends, and the next run plans (edit denied) until plan_exit is approved", async () => {
    const model = scriptedModel([
      [toolCall("plan_enter", { reason: "a large refactor" }, { id: "e1" })],
      [toolCall("plan_exit", { plan: "1. Rename the module\n2. Update imports" }, { id: "x1" })],
      [text("Switching to build.")],
      [text("Implementing now.")],
    ]);
    const h = await harness({ model, askPollMs: 25 });

    const first = await collect(h.runtime.runs.run({ prompt: "refactor everything" }));
    expect(first.result).toMatchObject({ status: "done", stopReason: "finished" });
    const sessionId = first.result.sessionId;
    expect(model.calls).toHaveLength(1);
    expect(offered(model, 0)).toEqual(expect.arrayContaining(["plan_enter", "question"]));
    expect(offered(model, 0)).not.toContain("plan_exit");
    let path = await h.store.getActivePath(sessionId);
    expect(sessionAgent(path)).toBe("plan");
    const change = path.map(parseCustomEntry).find((c) => c?.customType === AGENT_CHANGE_ENTRY_TYPE);
    expect(change?.data).toMatchObject({ agent: "plan", from: "build", via: "plan_enter", note: "a large refactor" });

    // The next run is the plan agent's: plan_exit is offered, edits are not, and leaving asks the user.
    const second = h.runtime.runs.run({ sessionId, prompt: "plan it" });
    let askId: string | undefined;
    for await (const e of second) {
      if (e.type === "permission_request") {
        expect(e).toMatchObject({ permission: "plan_exit", patterns: ["build"] });
        expect(e.metadata?.plan).toContain("Rename the module");
        askId = e.id;
        const pending = await h.runtime.asks.listPending(sessionId);
        expect(pending.map((a) => a.kind)).toEqual(["permission"]);
        await h.runtime.asks.answer(e.id, true);
      }
    }
    expect(askId).toBeDefined();
    expect((await second.result).stopReason).toBe("finished");
    expect(offered(model, 1)).toContain("plan_exit");
    expect(offered(model, 1)).not.toContain("plan_enter");
    expect(offered(model, 1)).not.toContain("edit");
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain("plan mode");
    path = await h.store.getActivePath(sessionId);
    expect(sessionAgent(path)).toBe("build");
    const assistant = path.filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(assistant.map((e) => (e.type === "message" ? (e.message as { agent?: string }).agent : undefined))).toEqual([
      "build",
      "plan",
    ]);

    // Back in build: the run after is build's again, reminded that plan mode is over.
    const third = await h.runtime.runs.run({ sessionId, prompt: "go" }).result;
    expect(third.status).toBe("done");
    expect(offered(model, 2)).toContain("edit");
    expect(offered(model, 2)).not.toContain("plan_exit");
  });

  it("a rejected plan_exit keeps the session in plan mode and the model reads the refusal", async () => {
    const model = scriptedModel([[toolCall("plan_exit", { plan: "1. Do it" }, { id: "x1" })], [text("unreached")]]);
    const h = await harness({ model, askPollMs: 25 });
    const handle = h.runtime.runs.run({ prompt: "plan first", agent: "plan" });
    for await (const e of handle) {
      if (e.type === "permission_request") await h.runtime.asks.answer(e.id, false, { message: "add tests to the plan" });
    }
    const result = await handle.result;
    expect(result.stopReason).toBe("permission_rejected");
    const path = await h.store.getActivePath(result.sessionId);
    expect(sessionAgent(path)).toBeUndefined();
    expect(JSON.stringify(path)).toContain("add tests to the plan");
  });

  it("a run that names its agent wins over the session's switch", async () => {
    const model = scriptedModel([[toolCall("plan_enter", {}, { id: "e1" })], [text("building")]]);
    const h = await harness({ model });
    const first = await h.runtime.runs.run({ prompt: "think first" }).result;
    await h.runtime.runs.run({ sessionId: first.sessionId, prompt: "just do it", agent: "build" }).result;
    expect(offered(model, 1)).toContain("edit");
  });
});

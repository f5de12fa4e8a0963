import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunEvent } from "../../src/model/run-events.js";
import { APPROVAL_ENTRY_TYPE } from "../../src/permissions/approvals.js";
import type { Runtime } from "../../src/runtime/types.js";
import { defineTool, type ToolResult } from "../../src/tools/tool.js";
import { collect, harness, transcript } from "./harness.js";

const readEnv = (id: string) => [toolCall("read", { path: ".env" }, { id })];

/** Plays a run to its end, answering each permission ask "once": whether it asked at all. */
async function answeringOnce(runtime: Runtime, run: AsyncIterable<RunEvent>): Promise<boolean> {
  let asked = false;
  for await (const event of run) {
    if (event.type === "permission_request") {
      asked = true;
      runtime.asks.replyPermission(event.id, "once");
    }
  }
  return asked;
}

describe("permission asks", () => {
  it("a pending ask has an id and an event; answering once lets the tool run", async () => {
    const model = scriptedModel([readEnv("r1"), [text("The key is set.")]]);
    const { runtime, store, cwd } = await harness({ model });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const handle = runtime.runs.run({ prompt: "check .env" });
    const { events } = await collect(handle, (event) => {
      expect(runtime.asks.pendingPermissions(handle.sessionId).map((p) => p.id)).toEqual([event.id]);
      expect(runtime.asks.pendingPermissions("other")).toEqual([]);
      expect(runtime.asks.replyPermission(event.id, "once")).toBe(true);
      expect(runtime.asks.replyPermission(event.id, "once")).toBe(false);
    });
    const request = events.find((e) => e.type === "permission_request");
    expect(request).toMatchObject({ permission: "read", tool: "read", call_id: "r1" });
    expect(request?.type === "permission_request" && request.patterns[0]).toMatch(/\.env$/);
    expect((await handle.result).status).toBe("done");
    const lines = await transcript(store, handle.sessionId);
    expect(lines[2]).toContain("KEY=1");
    expect(runtime.asks.pendingPermissions()).toEqual([]);
  });

  it("reject stops the run after the step, and the model's history holds the refusal", async () => {
    const model = scriptedModel([readEnv("r1"), [text("never reached")]]);
    const { runtime, store, cwd } = await harness({ model });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const handle = runtime.runs.run({ prompt: "check .env" });
    for await (const event of handle)
      if (event.type === "permission_request") runtime.asks.replyPermission(event.id, "reject", "not the secrets");
    const result = await handle.result;
    expect(result).toMatchObject({ status: "done", stopReason: "permission_rejected" });
    const lines = await transcript(store, handle.sessionId);
    expect(lines.at(-1)).toContain("rejected");
    expect(model.remaining).toBe(1);
    const path = await store.getActivePath(handle.sessionId);
    const tool = path.at(-1);
    expect(tool?.type === "message" && JSON.stringify(tool.message.content)).toContain("not the secrets");
  });

  it("always is persisted in the session, scoped to the agent, and answers the next run's ask", async () => {
    const model = scriptedModel([readEnv("r1"), [text("ok")], readEnv("r2"), [text("ok again")]]);
    const { runtime, store, cwd } = await harness({ model });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const first = runtime.runs.run({ prompt: "check .env" });
    for await (const event of first) if (event.type === "permission_request") runtime.asks.replyPermission(event.id, "always");
    expect((await first.result).status).toBe("done");
    const approvals = (await store.getActivePath(first.sessionId)).filter(
      (e) => e.type === "custom" && e.customType === APPROVAL_ENTRY_TYPE,
    );
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ data: { agent: "build", permission: "read", scope: "session" } });

    const second = runtime.runs.run({ sessionId: first.sessionId, prompt: "again" });
    const { events, result } = await collect(second);
    expect(result.status).toBe("done");
    expect(events.some((e) => e.type === "permission_request")).toBe(false);

    // Another agent in the same session does not inherit the approval: it was given to one agent's preset.
    const plan = runtime.runs.run({
      sessionId: first.sessionId,
      prompt: "plan it",
      agent: "plan",
      model: scriptedModel([readEnv("r3"), [text("x")]]),
    });
    expect(await answeringOnce(runtime, plan)).toBe(true);

    // Visible and revocable: after revoking, the build agent is asked again.
    expect(await runtime.asks.approvals(first.sessionId)).toEqual([
      { id: expect.any(String), agent: "build", permission: "read", pattern: expect.stringMatching(/\.env$/), scope: "session" },
    ]);
    const [approval] = await runtime.asks.approvals(first.sessionId);
    expect(await runtime.asks.revokeApproval(first.sessionId, approval!)).toBe(true);
    expect(await runtime.asks.revokeApproval(first.sessionId, approval!)).toBe(false);
    expect(await runtime.asks.approvals(first.sessionId)).toEqual([]);
    const third = runtime.runs.run({
      sessionId: first.sessionId,
      prompt: "once more",
      model: scriptedModel([readEnv("r4"), [text("y")]]),
    });
    expect(await answeringOnce(runtime, third)).toBe(true);
  });

  it("an onPermission handler answers asks without anyone calling replyPermission", async () => {
    const model = scriptedModel([readEnv("r1"), [text("ok")]]);
    const seen: string[] = [];
    const { runtime, cwd } = await harness({
      model,
      onPermission: (pending) => {
        seen.push(pending.request.permission);
        return "once";
      },
    });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const { result } = await collect(runtime.runs.run({ prompt: "check" }));
    expect(result.status).toBe("done");
    expect(seen).toEqual(["read"]);
  });

  it("rules from the runtime's config deny a tool outright: it is not offered to the model", async () => {
    const model = scriptedModel([[text("ok")]]);
    const { runtime } = await harness({ model, permission: { bash: "deny" } });
    await collect(runtime.runs.run({ prompt: "hi" }));
    const names = model.calls[0]?.options.tools?.map((t) => t.name) ?? [];
    expect(names).toContain("read");
    expect(names).not.toContain("bash");
  });

  it("aborting while an ask is pending withdraws it", async () => {
    const model = scriptedModel([readEnv("r1")]);
    const { runtime, cwd } = await harness({ model });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const handle = runtime.runs.run({ prompt: "check" });
    for await (const event of handle) if (event.type === "permission_request") handle.abort();
    expect((await handle.result).status).toBe("aborted");
    expect(runtime.asks.pendingPermissions()).toEqual([]);
  });
});

describe("doom-loop guard", () => {
  const same = () => [toolCall("list", { path: "." })];

  it("asks doom_loop on the third identical call; rejecting stops the run", async () => {
    const model = scriptedModel([same(), same(), same(), [text("never")]]);
    const { runtime } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "look around" });
    const asks: RunEvent[] = [];
    await collect(handle, (event) => {
      asks.push(event);
      runtime.asks.replyPermission(event.id, "reject");
    });
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({ permission: "doom_loop", patterns: ["list"] });
    expect(await handle.result).toMatchObject({ status: "done", stopReason: "doom_loop" });
    expect(model.callCount).toBe(3);
  });

  it("catches a cycle of two calls across messages; allowing it lets the run go on", async () => {
    const a = () => [toolCall("list", { path: "." })];
    const b = () => [toolCall("glob", { pattern: "*.md" })];
    const model = scriptedModel([a(), b(), a(), b(), a(), b(), [text("done")]]);
    const { runtime } = await harness({ model, onPermission: () => "once" });
    const handle = runtime.runs.run({ prompt: "look" });
    const { events, result } = await collect(handle);
    const asks = events.filter((e) => e.type === "permission_request");
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({ permission: "doom_loop" });
    expect(result).toMatchObject({ status: "done", stopReason: "finished" });
  });
});

describe("one run per session", () => {
  it("a second prompt to a busy session waits for the first", async () => {
    const model = scriptedModel([[text("first answer")], [text("second answer")]]);
    const { runtime, store } = await harness({ model });
    const first = runtime.runs.run({ prompt: "one" });
    const firstResult = first.result;
    const second = runtime.runs.run({ sessionId: first.sessionId, prompt: "two" });
    expect((await firstResult).status).toBe("done");
    expect((await second.result).status).toBe("done");
    expect(await transcript(store, first.sessionId)).toEqual([
      "user: one",
      "assistant: first answer",
      "user: two",
      "assistant: second answer",
    ]);
  });

  it("with busy: reject, a second prompt fails with session_busy and writes nothing", async () => {
    // A tool that holds the first run until the test has tried the second.
    let release = () => {};
    const gate = defineTool({
      name: "gate",
      description: "Waits until released.",
      input: z.object({}),
      execute: () =>
        new Promise<ToolResult>((resolve) => {
          release = () => resolve({ output: "released" });
        }),
    });
    const model = scriptedModel([[toolCall("gate", {})], [text("done")]]);
    const { runtime, store } = await harness({ model, busy: "reject", tools: [gate] });
    const first = runtime.runs.run({ prompt: "one" });
    for await (const event of first) {
      if (event.type === "tool_start") {
        const second = runtime.runs.run({ sessionId: first.sessionId, prompt: "two" });
        expect((await second.result).error?.code).toBe("session_busy");
        release();
      }
    }
    expect((await first.result).status).toBe("done");
    expect((await transcript(store, first.sessionId)).filter((l) => l.startsWith("user"))).toEqual(["user: one"]);
  });

  it("runs of different sessions proceed at the same time", async () => {
    const { runtime } = await harness();
    const runs = Array.from({ length: 8 }, (_, i) =>
      runtime.runs.run({ prompt: `task ${i}`, model: scriptedModel([[toolCall("list", {})], [text(`answer ${i}`)]]) }),
    );
    const results = await Promise.all(runs.map((r) => r.result));
    expect(results.map((r) => r.text)).toEqual(runs.map((_, i) => `answer ${i}`));
    expect(new Set(runs.map((r) => r.sessionId)).size).toBe(8);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/model/run-events.js";
import { collect, harness } from "./harness.js";

describe("tool durations", () => {
  it("leave out the time spent waiting for a permission answer, which is kept apart", async () => {
    // A clock the test moves: the person "thinks" for 5 s before answering; the tool itself takes no time.
    let now = 1_000_000;
    const model = scriptedModel([[toolCall("read", { path: ".env" }, { id: "r1" })], [text("done")]]);
    const { runtime, store, cwd } = await harness({ model, clock: { now: () => now, sleep: async () => {} } });
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const handle = runtime.runs.run({ prompt: "check .env" });
    const { events } = await collect(handle, (event) => {
      now += 5_000;
      runtime.asks.replyPermission(event.id, "once");
    });
    expect((await handle.result).status).toBe("done");
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ tool: "read", duration_ms: 0, permission_wait_ms: 5_000 });
    const tool = (await store.getActivePath(handle.sessionId)).find((e) => e.type === "message" && e.message.role === "tool");
    expect(tool?.type === "message" && tool.message).toMatchObject({ durationMs: 0, permissionWaitMs: 5_000 });
  });

  it("count no wait when a rule allows the call at once", async () => {
    // Every reading of this clock moves it on by 1 ms, so any measured wait would show.
    let now = 0;
    const model = scriptedModel([[toolCall("read", { path: "notes.txt" }, { id: "r1" })], [text("done")]]);
    const { runtime, cwd } = await harness({ model, clock: { now: () => ++now, sleep: async () => {} } });
    writeFileSync(join(cwd, "notes.txt"), "hello\n");
    const handle = runtime.runs.run({ prompt: "read the notes" });
    const events: RunEvent[] = [];
    for await (const event of handle) events.push(event);
    expect((await handle.result).status).toBe("done");
    expect(events.some((e) => e.type === "permission_request")).toBe(false);
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ tool: "read", is_error: false });
    expect(end && "permission_wait_ms" in end).toBe(false);
  });
});

import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { PendingAsk } from "../../src/runtime/asks-api.js";
import { collect, harness } from "../loop/harness.js";
import { everythingStdio } from "./servers.js";

/**
 * A server's elicitation (MCP `elicitation/create`, form mode) during a tool call becomes a durable
 * ask of kind `elicitation`: listed with the other asks, answered through `runtime.asks.answer`, the
 * answer kept in the store. server-everything's trigger-elicitation-request asks for a form with a
 * required name and fields with defaults, and echoes what it got.
 */
const TOOL = "mcp__everything__trigger-elicitation-request";
const config = () => resolveConfig([{ source: "test", value: { mcp: { servers: { everything: everythingStdio() } } } }]);

async function elicitationOf(runtime: Awaited<ReturnType<typeof harness>>["runtime"]) {
  let found: Extract<PendingAsk, { kind: "elicitation" }> | undefined;
  await vi.waitFor(
    async () => {
      found = (await runtime.asks.listPending()).find((a) => a.kind === "elicitation");
      expect(found).toBeDefined();
    },
    { timeout: 30_000, interval: 50 },
  );
  return found as Extract<PendingAsk, { kind: "elicitation" }>;
}

describe("MCP elicitation as an ask", () => {
  it("a form is asked durably, a bad answer is refused, and the accepted content (defaults filled in) reaches the server", async () => {
    const model = scriptedModel([[toolCall(TOOL, {}, { id: "el" })], [text("done")]]);
    const { runtime, store } = await harness({ model, config: config() });
    const running = collect(runtime.runs.run({ prompt: "ask me" }));
    const ask = await elicitationOf(runtime);
    expect(ask.elicitation).toMatchObject({ server: "everything", callId: "el", mode: "form" });
    expect(ask.elicitation.requestedSchema.required).toEqual(["name"]);

    await expect(runtime.asks.answer(ask.id, true, { content: { name: 5 } })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(runtime.asks.answer(ask.id, true, { content: {} })).rejects.toThrow(/name is required/);
    expect((await store.getAsk(ask.id))?.answer).toBeUndefined();

    const answered = await runtime.asks.answer(ask.id, true, { content: { name: "Ada Lovelace", check: true } });
    expect(answered.kind).toBe("elicitation");
    const { events, result } = await running;
    expect(result.status).toBe("done");
    const end = events.find((e) => e.type === "tool_end" && e.call_id === "el");
    const output = end?.type === "tool_end" ? end.output : "";
    expect(output).toContain("Name: Ada Lovelace");
    // Left out, so the MCP client filled in the form's default.
    expect(output).toContain("Favorite Integer: 42");
    expect((await store.getAsk(ask.id))?.answer?.value).toMatchObject({ action: "accept", content: { name: "Ada Lovelace" } });
    expect(await runtime.asks.listPending()).toEqual([]);
  });

  it("a declined elicitation tells the server so, and an answer after it is refused", async () => {
    const model = scriptedModel([[toolCall(TOOL, {}, { id: "el" })], [text("done")]]);
    const { runtime, store } = await harness({ model, config: config() });
    const running = collect(runtime.runs.run({ prompt: "ask me" }));
    const ask = await elicitationOf(runtime);
    await runtime.asks.answer(ask.id, false);
    const { events } = await running;
    const end = events.find((e) => e.type === "tool_end" && e.call_id === "el");
    expect(end?.type === "tool_end" ? end.output : "").not.toContain("User provided");
    expect((await store.getAsk(ask.id))?.answer?.value).toEqual({ action: "decline" });
    await expect(runtime.asks.answer(ask.id, true, { content: { name: "late" } })).rejects.toMatchObject({
      code: "ask_already_answered",
    });
  });

  it("an elicitation whose run is aborted is closed as cancelled, so it is no longer listed", async () => {
    const model = scriptedModel([[toolCall(TOOL, {}, { id: "el" })], [text("done")]]);
    const { runtime, store } = await harness({ model, config: config() });
    const handle = runtime.runs.run({ prompt: "ask me" });
    const running = collect(handle);
    const ask = await elicitationOf(runtime);
    handle.abort();
    await running;
    await vi.waitFor(async () => expect((await store.getAsk(ask.id))?.answer?.value).toEqual({ action: "cancel" }));
    expect(await runtime.asks.listPending()).toEqual([]);
  });
});

import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { PendingAsk } from "../../src/runtime/asks-api.js";
import { collect, harness } from "../loop/harness.js";
import { everythingStdio, urlElicitingServer } from "./servers.js";

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
    expect(ask.elicitation.mode === "form" && ask.elicitation.requestedSchema.required).toEqual(["name"]);

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

describe("MCP elicitation in URL mode as an ask", () => {
  const closes: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closes.splice(0)) await close();
  });
  /** The SDK's McpServer whose connect_account asks the client to open a URL, configured as server `accounts`. */
  async function accounts() {
    const server = await urlElicitingServer();
    closes.push(server.close);
    return resolveConfig([{ source: "test", value: { mcp: { servers: { accounts: { url: server.url, timeoutMs: 30_000 } } } } }]);
  }
  const CALL = "mcp__accounts__connect_account";
  const outputOf = (events: readonly { type: string }[]) => {
    const end = events.find((e) => e.type === "tool_end") as { output?: string } | undefined;
    return end?.output ?? "";
  };

  it("waits as an ask naming the URL; accepted (no content taken), the server hears accept", async () => {
    const model = scriptedModel([[toolCall(CALL, {}, { id: "c1" })], [text("Connected.")]]);
    const { runtime, store } = await harness({ model, config: await accounts() });
    const running = collect(runtime.runs.run({ prompt: "connect my account" }));
    const ask = await elicitationOf(runtime);
    expect(ask.elicitation).toMatchObject({
      server: "accounts",
      callId: "c1",
      mode: "url",
      url: "https://example.test/connect?state=abc",
      elicitationId: "elic-1",
      message: "Sign in to Example to connect your account.",
    });
    // What the person types goes to the page, never through Arbor.
    await expect(runtime.asks.answer(ask.id, true, { content: { password: "x" } })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await runtime.asks.answer(ask.id, true);
    const { events, result } = await running;
    expect(result.status).toBe("done");
    expect(outputOf(events)).toBe("action: accept");
    expect((await store.getAsk(ask.id))?.answer?.value).toEqual({ action: "accept" });
  });

  it("someone at hand (onElicitation, as arbor run's terminal) answers it through the store; decline reaches the server", async () => {
    const model = scriptedModel([[toolCall(CALL, {}, { id: "c1" })], [text("Not connected.")]]);
    const seen: string[] = [];
    const { runtime, store } = await harness({
      model,
      config: await accounts(),
      onElicitation: async (pending) => {
        seen.push(pending.mode === "url" ? `${pending.id} ${pending.url}` : "form");
        return { action: "decline" };
      },
    });
    const { events } = await collect(runtime.runs.run({ prompt: "connect my account" }));
    expect(outputOf(events)).toBe("action: decline");
    expect(seen).toEqual([expect.stringMatching(/^elic_\S+ https:\/\/example\.test\/connect\?state=abc$/)]);
    const [id] = (seen[0] ?? "").split(" ");
    expect((await store.getAsk(id ?? ""))?.answer?.value).toEqual({ action: "decline" });
  });
});

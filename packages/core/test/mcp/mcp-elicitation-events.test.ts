import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { RuntimeOptions } from "../../src/runtime/types.js";
import { collect, firstOf, harness, types } from "../loop/harness.js";
import { formElicitingServer, urlElicitingServer } from "./servers.js";

/**
 * A server's elicitation is announced on the run's stream (`elicitation_request`, with the form or
 * the URL and the ask's id to answer) when its ask is recorded, and its end too (`elicitation_answered`),
 * so a client following the run needs no reading of the asks to show it.
 */
const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

/** The URL-eliciting server's tool, as two tests call it. */
const account = { server: "accounts", tool: "connect_account", callId: "c1", prompt: "connect my account" };

async function configWith(name: string, server: { url: string; close(): Promise<void> }) {
  closes.push(server.close);
  return resolveConfig([
    {
      source: "test",
      value: { mcp: { servers: { [name]: { url: server.url, timeoutMs: 30_000 } } }, permission: { "mcp__*": "allow" } },
    },
  ]);
}

/**
 * Runs `prompt` on a model that calls the server's `tool` (call id `callId`), whose elicitation the
 * test answers (or, given an `onElicitation`, someone at hand does), then says `answer`.
 */
async function runCalling(
  call: { server: string; tool: string; callId: string; prompt: string; answer: string },
  eliciting: { url: string; close(): Promise<void> },
  options: Partial<RuntimeOptions> = {},
) {
  const model = scriptedModel([[toolCall(`mcp__${call.server}__${call.tool}`, {}, { id: call.callId })], [text(call.answer)]]);
  const config = await configWith(call.server, eliciting);
  const { runtime, store } = await harness({ model, config, ...options });
  return { runtime, store, handle: runtime.runs.run({ prompt: call.prompt }) };
}

/** As `runCalling`, up to the elicitation's announcement: the event, and the run's events after it. */
async function announced(call: Parameters<typeof runCalling>[0], eliciting: { url: string; close(): Promise<void> }) {
  const run = await runCalling(call, eliciting);
  return { ...run, ...(await firstOf(run.handle, "elicitation_request")) };
}

describe("MCP elicitations as run events", () => {
  it("a form is announced with its schema and ask id, answered by that id, and its end announced before the call ends", async () => {
    const ticket = { server: "tickets", tool: "file_ticket", callId: "t1", prompt: "file a ticket", answer: "Filed." };
    const { runtime, store, handle, event, rest } = await announced(ticket, await formElicitingServer());
    expect(event).toMatchObject({
      server: "tickets",
      call_id: "t1",
      mode: "form",
      message: "Describe the ticket to file.",
      requested_schema: { type: "object", required: ["title"], properties: { title: { type: "string", title: "Title" } } },
    });
    // The event's id is the durable ask's: announced once recorded, so it can be answered at once.
    expect((await store.getAsk(event.id))?.kind).toBe("elicitation");
    await runtime.asks.answer(event.id, true, { content: { title: "Printer on fire" } });

    const events = await rest;
    expect((await handle.result).status).toBe("done");
    const answered = events.find((e) => e.type === "elicitation_answered");
    expect(answered).toEqual({
      type: "elicitation_answered",
      session_id: event.session_id,
      id: event.id,
      server: "tickets",
      call_id: "t1",
      action: "accept",
    });
    // What the form was filled in with stays in the ask: the stream only says how it ended.
    expect(JSON.stringify(answered)).not.toContain("Printer on fire");
    const order = types(events);
    expect(order.indexOf("elicitation_request")).toBeLessThan(order.indexOf("elicitation_answered"));
    expect(order.indexOf("elicitation_answered")).toBeLessThan(order.indexOf("tool_end"));
    // Logged like every run event, so a client resuming the stream (SSE, the inspector) gets both.
    const logged = (await store.listEvents(event.session_id)).map((e) => e.type);
    expect(logged).toEqual(expect.arrayContaining(["run.elicitation_request", "run.elicitation_answered"]));
  });

  it("a URL elicitation is announced with its page; one withdrawn by the run's abort ends as cancel", async () => {
    const { handle, event, rest } = await announced({ ...account, answer: "Connected." }, await urlElicitingServer());
    expect(event).toMatchObject({
      server: "accounts",
      call_id: "c1",
      mode: "url",
      url: "https://example.test/connect?state=abc",
      elicitation_id: "elic-1",
    });
    expect(event).not.toHaveProperty("requested_schema");
    handle.abort();
    const events = await rest;
    expect(events.find((e) => e.type === "elicitation_answered")).toMatchObject({ id: event.id, action: "cancel" });
  });

  it("one answered by someone at hand is announced too, so every follower sees it come and go", async () => {
    const { handle } = await runCalling({ ...account, answer: "Not connected." }, await urlElicitingServer(), {
      onElicitation: async () => ({ action: "decline" }),
    });
    const { events } = await collect(handle);
    const asked = events.find((e) => e.type === "elicitation_request");
    expect(asked).toBeDefined();
    expect(events.find((e) => e.type === "elicitation_answered")).toMatchObject({
      id: asked?.type === "elicitation_request" ? asked.id : "",
      action: "decline",
    });
  });
});

import { ClientFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import { ConfigSchema } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { DefaultChatTransport, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { formElicitingServer } from "../../core/test/mcp/servers.js";
import { connect, textOf } from "./helpers/acp-client.js";
import { firstSessionId, responsesClient } from "./helpers/open-responses.js";
import { a2aRequest, TestChat } from "./helpers/protocol-clients.js";
import { onCleanup, startServer, type TestServer } from "./helpers/server.js";
import { readSse, tokenText } from "./helpers/sse.js";

/**
 * A run whose MCP tool asks the person for a form (an elicitation), through each protocol's own
 * client: the stream says what is asked and where to answer it, instead of stalling silently, and
 * the run goes on once it is answered at that other door.
 */

/** Arbor over a downstream server (`tickets`) whose `file_ticket` tool asks for a ticket's fields. */
async function ticketsServer(): Promise<TestServer> {
  const tickets = await formElicitingServer();
  // Registered before the Arbor server's, so closed after it.
  onCleanup(tickets.close);
  return startServer({
    script: [[toolCall("mcp__tickets__file_ticket", {}, { id: "t1" })], [text("Filed.")]],
    runtime: {
      config: ConfigSchema.parse({
        mcp: { servers: { tickets: { url: tickets.url, timeoutMs: 30_000 } } },
        permission: { "mcp__*": "allow" },
      }),
    },
  });
}

/** What every protocol says of the ask: the server's message, the form's fields, and where it is answered. */
const NOTICE =
  /MCP server tickets asks: Describe the ticket to file\. Fields: Title \(title, required\); Priority \(priority: low \/ normal \/ high\);.*arbor approve (\S+) --content .*POST \/api\/asks\/\1 /;
const askIdIn = (said: string): string => {
  const id = NOTICE.exec(said)?.[1];
  if (id === undefined) throw new Error(`no elicitation notice in ${JSON.stringify(said)}`);
  return id;
};

/** The form filled in at the API, as the inspector or `arbor approve --content` would. */
const fill = async (server: TestServer, id: string) => {
  const res = await server.api(`/api/asks/${id}`, { json: { allow: true, content: { title: "Printer on fire" } } });
  expect(res.status).toBe(200);
};

/** The session's run followed to its end on the run stream: the downstream tool got the form. */
const runToDone = async (server: TestServer, sessionId: string) => {
  const events = await readSse(await server.api(`/api/sessions/${sessionId}/stream`));
  expect(events.at(-1)?.event.type).toBe("done");
  expect(JSON.stringify(events.map((m) => m.event))).toMatch(/action: accept.*Printer on fire/);
  return tokenText(events);
};

describe("an MCP server's elicitation on every protocol's stream", () => {
  it("http-chat (fetch + SSE): the run event itself, with the form, then how it ended", async () => {
    const server = await ticketsServer();
    const answers: Promise<void>[] = [];
    const events = await readSse(await server.api("/api/chat", { json: { message: "File a ticket." } }), (m) => {
      if (m.event.type === "elicitation_request") answers.push(fill(server, m.event.id));
      return undefined;
    });
    await Promise.all(answers);
    const asked = events.map((m) => m.event).filter((e) => e.type === "elicitation_request");
    expect(asked).toEqual([
      expect.objectContaining({
        server: "tickets",
        mode: "form",
        requested_schema: expect.objectContaining({ required: ["title"] }),
      }),
    ]);
    expect(events.map((m) => m.event)).toContainEqual(
      expect.objectContaining({ type: "elicitation_answered", action: "accept" }),
    );
    expect(tokenText(events)).toBe("Filed.");
  });

  it("ui-chat (ai AbstractChat): a data-elicitation part and the words saying where to answer; the part then says how it ended", async () => {
    const server = await ticketsServer();
    const answers: Promise<void>[] = [];
    const chat = new TestChat({
      id: "chat-elicit",
      transport: new DefaultChatTransport({ api: `${server.url}/api/ui/chat` }),
      onData: (part) => {
        const data = part.data as { id?: string; action?: string };
        if (part.type === "data-elicitation" && data.action === undefined) answers.push(fill(server, String(data.id)));
      },
    });
    await chat.sendMessage({ text: "File a ticket." });
    await Promise.all(answers);
    expect(chat.error).toBeUndefined();
    const message = chat.lastMessage as UIMessage;
    const said = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    const id = askIdIn(said);
    expect(said).toMatch(/Filed\.$/);
    const parts = message.parts.filter((p) => p.type === "data-elicitation");
    // One part, replaced in place when the elicitation ended.
    expect(parts).toEqual([
      expect.objectContaining({
        id,
        data: expect.objectContaining({
          id,
          server: "tickets",
          mode: "form",
          message: "Describe the ticket to file.",
          action: "accept",
        }),
      }),
    ]);
  });

  it("open-responses (openai): the response says it and where to answer, and ends; the run goes on once answered", async () => {
    const server = await ticketsServer();
    const openai = responsesClient(server);
    const response = await openai.responses.create({ model: "build", input: "File a ticket." });
    expect(response.status).toBe("completed");
    const id = askIdIn(response.output_text);
    expect(response.output_text).toMatch(/The Responses API cannot carry/);
    const sessionId = await firstSessionId(server);
    await fill(server, id);
    expect(await runToDone(server, sessionId)).toContain("Filed.");
  });

  it("a2a (@a2a-js/sdk Client): the task is input-required with the ask as its status message", async () => {
    const server = await ticketsServer();
    const client = await new ClientFactory().createFromUrl(server.url);
    type Status = { state: number; message?: { parts: { content?: { $case: string; value: unknown } }[] } };
    const first = (await client.sendMessage(a2aRequest("File a ticket."))) as { id: string; status?: Status };
    const partsOf = (status: Status | undefined) => status?.message?.parts.map((p) => p.content) ?? [];
    const saidIn = (status: Status | undefined) =>
      partsOf(status)
        .flatMap((c) => (c?.$case === "text" ? [String(c.value)] : []))
        .join("");
    expect(first.status?.state).toBe(6); // TASK_STATE_INPUT_REQUIRED
    const id = askIdIn(saidIn(first.status));
    expect(partsOf(first.status)).toContainEqual({
      $case: "data",
      value: expect.objectContaining({ ask: "elicitation", askId: id, server: "tickets", mode: "form" }),
    });
    // Read again, the task still says it; a reply cannot answer a form, and says where to.
    const read = (await client.getTask({ id: first.id, historyLength: 0, tenant: "" })) as { status?: Status };
    expect(saidIn(read.status)).toMatch(NOTICE);
    await expect(client.sendMessage(a2aRequest("Printer on fire", first.id))).rejects.toThrow(/arbor approve/);
    await fill(server, id);
    expect(await runToDone(server, first.id)).toContain("Filed.");
  });

  it("ag-ui (@ag-ui/client HttpAgent): an arbor.elicitation custom event with the fields, then arbor.elicitation_answered", async () => {
    const server = await ticketsServer();
    const agent = new HttpAgent({ url: `${server.url}/api/ag-ui`, threadId: "agui-elicit" });
    agent.addMessage({ id: "u-1", role: "user", content: "File a ticket." });
    const customs: { name: string; value: Record<string, unknown> }[] = [];
    const answers: Promise<void>[] = [];
    let said = "";
    await agent.runAgent(undefined, {
      onCustomEvent: ({ event }) => {
        customs.push({ name: event.name, value: event.value as Record<string, unknown> });
        if (event.name === "arbor.elicitation") answers.push(fill(server, String((event.value as { id: string }).id)));
      },
      onTextMessageContentEvent: ({ event }) => {
        said += event.delta;
      },
    });
    await Promise.all(answers);
    const asked = customs.find((c) => c.name === "arbor.elicitation")?.value;
    expect(asked).toMatchObject({
      server: "tickets",
      mode: "form",
      message: "Describe the ticket to file.",
      fields: expect.arrayContaining([
        { name: "title", title: "Title", type: "string", required: true, description: "One line" },
        expect.objectContaining({ name: "priority", choices: ["low", "normal", "high"] }),
      ]),
    });
    expect(String(asked?.notice)).toMatch(NOTICE);
    expect(customs).toContainEqual({
      name: "arbor.elicitation_answered",
      value: { id: asked?.id, server: "tickets", action: "accept" },
    });
    expect(said).toBe("Filed.");
  });

  it("acp (the SDK's client): said as an agent message, and the turn ends once it is answered", async () => {
    const server = await ticketsServer();
    const client = connect(server);
    await client.init();
    const { sessionId } = await client.newSession();
    const turn = client.prompt(sessionId, "File a ticket.");
    await client.seen((n) => n.update.sessionUpdate === "agent_message_chunk" && NOTICE.test(JSON.stringify(n.update)));
    const said = textOf(client.updates, "agent_message_chunk");
    expect(said).toMatch(/ACP cannot carry/);
    await fill(server, askIdIn(said));
    expect((await turn).stopReason).toBe("end_turn");
    expect(textOf(client.updates, "agent_message_chunk")).toMatch(/Filed\.$/);
  });
});

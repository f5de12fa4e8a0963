import { reasoning, text, toolCall } from "@arbor/testkit";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  clientFunction,
  firstSessionId,
  functionOutputs,
  responsesClient,
  toolResults,
  weatherTools,
} from "./helpers/open-responses.js";
import { startServer, type TestServer } from "./helpers/server.js";

const clientOf = (server: TestServer) => responsesClient(server);

const sessionCount = async (server: TestServer) => (await server.store.listSessions({})).sessions.length;

describe("the OpenAI Responses API through the official client", () => {
  it("answers a response without streaming, and reads it back by id", async () => {
    const server = await startServer({ script: [[reasoning("Thinking it over."), text("The answer is 42.", { chunks: 3 })]] });
    const openai = clientOf(server);
    const response = await openai.responses.create({ model: "build", input: "What is the answer?" });
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("The answer is 42.");
    expect(response.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
    expect(response.id).toMatch(/^resp_/);
    const read = await openai.responses.retrieve(response.id);
    expect(read.output_text).toBe("The answer is 42.");
    expect(read.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
    expect(await sessionCount(server)).toBe(1);
  });

  it("streams the Responses API's events, which the client's stream helper accumulates", async () => {
    const server = await startServer({ script: [[text("Streamed answer.", { chunks: 4 })]] });
    const openai = clientOf(server);
    const stream = openai.responses.stream({ model: "build", input: "Stream it." });
    const deltas: string[] = [];
    const types: string[] = [];
    stream.on("event", (e) => types.push(e.type));
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(deltas.join("")).toBe("Streamed answer.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.output_text).toBe("Streamed answer.");
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.output_item.added");
    expect(types).toContain("response.output_item.done");
  });

  it("runs Arbor's own tools as mcp_call items beside the answer", async () => {
    const server = await startServer({
      script: [[toolCall("glob", { pattern: "*.md" }, { id: "g1" })], [text("No markdown here.")]],
    });
    const openai = clientOf(server);
    const response = await openai.responses.create({ model: "build", input: "Any markdown?", stream: true });
    const events: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const e of response) {
      events.push(e.type);
      if (e.type === "response.completed") final = e.response;
    }
    expect(events).toContain("response.mcp_call.completed");
    const call = final?.output.find((i) => i.type === "mcp_call");
    expect(call).toMatchObject({ type: "mcp_call", name: "glob", server_label: "arbor", status: "completed" });
    expect(final?.output.at(-1)).toMatchObject({ type: "message" });
  });

  it("pauses on a client function call and goes on with the function_call_output of the next request", async () => {
    const server = await startServer({
      script: [[toolCall("get_weather", { city: "Oslo" }, { id: "w1" })], [text("It is sunny in Oslo.")]],
    });
    const openai = clientOf(server);
    const tools = weatherTools;
    const first = await openai.responses.create({ model: "build", input: "Weather in Oslo?", tools });
    expect(first.status).toBe("completed");
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", call_id: "w1" });
    expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: "Oslo" });

    const stream = openai.responses.stream({ ...functionOutputs(first.id, { w1: "sunny, 21°C" }), tools });
    const second = await stream.finalResponse();
    expect(second.output_text).toBe("It is sunny in Oslo.");
    expect(second.id).not.toBe(first.id);
    // The tool result the model read is the client's output.
    expect((await toolResults(server, await firstSessionId(server)))[0]).toEqual({ type: "text", value: "sunny, 21°C" });
  });

  it("continues from a response that is not the latest as a branch of its session", async () => {
    const server = await startServer({ script: [[text("One.")], [text("Two.")], [text("Two, again.")]] });
    const openai = clientOf(server);
    const first = await openai.responses.create({ model: "build", input: "Count." });
    const second = await openai.responses.create({ model: "build", input: "Go on.", previous_response_id: first.id });
    expect(second.output_text).toBe("Two.");
    const branch = await openai.responses.create({ model: "build", input: "Go on differently.", previous_response_id: first.id });
    expect(branch.output_text).toBe("Two, again.");
    expect(await sessionCount(server)).toBe(1);
    const sessionId = (await server.store.listSessions({})).sessions[0]!.id;
    const res = await server.api(`/api/sessions/${sessionId}`);
    expect(res.status).toBe(200);
    const entries = await server.store.listEntries(sessionId);
    const users = entries.filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(3);
    // The second and third prompts are siblings: both follow the first answer.
    expect(users[1]!.parentId).toBe(users[2]!.parentId);
    // Each response still reads back as it was.
    expect((await openai.responses.retrieve(second.id)).output_text).toBe("Two.");
    expect((await openai.responses.retrieve(branch.id)).output_text).toBe("Two, again.");
  });

  it("lists the agents as models", async () => {
    const server = await startServer({});
    const models = [];
    for await (const model of clientOf(server).models.list()) models.push(model.id);
    expect(models).toContain("build");
  });

  it("refuses bad input with an OpenAI-shaped error, writing nothing", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const openai = clientOf(server);
    const err = await openai.responses
      .create({ model: "build", input: [{ type: "function_call", call_id: "x", name: "f", arguments: "{}" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.code).toBe("invalid_input");
    expect(bad.param).toBe("input[0].type");
    expect(bad.type).toBe("invalid_request_error");
    const raw = await server.api("/v1/responses", { json: { model: "nope", input: "hi" } });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: { message: expect.stringContaining("nope"), type: "invalid_request_error", param: "model", code: "invalid_model" },
    });
    const unknown = await openai.responses.retrieve("resp_nothing").catch((e: unknown) => e);
    expect((unknown as { status?: number }).status).toBe(400);
    expect(await sessionCount(server)).toBe(0);
  });

  it("answers a conversation whose run waits with 409 session_busy, and a wrong output with 400, changing nothing", async () => {
    const server = await startServer({ script: [[toolCall("lookup", { q: "x" }, { id: "c1" })], [text("Done.")]] });
    const openai = clientOf(server);
    const tools = [clientFunction("lookup")];
    const first = await openai.responses.create({ model: "build", input: "Look it up.", tools });
    const busy = await openai.responses
      .create({ model: "build", input: "Something else.", previous_response_id: first.id })
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(OpenAI.ConflictError);
    expect((busy as InstanceType<typeof OpenAI.ConflictError>).code).toBe("session_busy");
    const wrong = await openai.responses.create(functionOutputs(first.id, { other: "x" })).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    const done = await openai.responses.create(functionOutputs(first.id, { c1: "found" }));
    expect(done.output_text).toBe("Done.");
    // Answered once: the same answer again finds nothing waiting.
    const again = await openai.responses.create(functionOutputs(first.id, { c1: "found" })).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("refuses a function named like one of Arbor's tools before anything is written", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const err = await clientOf(server)
      .responses.create({
        model: "build",
        input: "hi",
        tools: [{ type: "function", name: "read", parameters: {}, strict: false }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toMatch(/read is one of the runtime's own/);
    expect(await sessionCount(server)).toBe(0);
  });

  it("with store: false answers and keeps nothing", async () => {
    const server = await startServer({ script: [[text("Gone after.")]] });
    const openai = clientOf(server);
    const response = await openai.responses.create({ model: "build", input: "Forget me.", store: false });
    expect(response.output_text).toBe("Gone after.");
    expect((response as { store?: boolean }).store).toBe(false);
    expect(await sessionCount(server)).toBe(0);
    const read = await openai.responses.retrieve(response.id).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("compacts a conversation with Arbor's compaction and continues from the compacted response", async () => {
    const server = await startServer({
      script: [
        [text("First answer.")],
        [text("Second answer.")],
        [text("Summary: two answers were given.")],
        [text("Third answer.")],
      ],
    });
    const openai = clientOf(server);
    const one = await openai.responses.create({ model: "build", input: "One." });
    const two = await openai.responses.create({ model: "build", input: "Two.", previous_response_id: one.id });
    const compacted = await openai.responses.compact({ model: "build", previous_response_id: two.id });
    expect(compacted.object).toBe("response.compaction");
    expect(compacted.output.at(-1)?.type).toBe("compaction");
    const sessionId = (await server.store.listSessions({})).sessions[0]!.id;
    expect((await server.store.listEntries(sessionId)).some((e) => e.type === "compaction")).toBe(true);
    const three = await openai.responses.create({ model: "build", input: "Three.", previous_response_id: compacted.id });
    expect(three.output_text).toBe("Third answer.");
  });

  it("returns every function call of a step in one response, and takes their outputs together", async () => {
    const server = await startServer({
      script: [
        [toolCall("lookup", { q: "a" }, { id: "c1" }), toolCall("lookup", { q: "b" }, { id: "c2" })],
        [text("Both found.")],
      ],
    });
    const openai = clientOf(server);
    const tools = [clientFunction("lookup")];
    const first = await openai.responses.create({ model: "build", input: "Look both up.", tools });
    const calls = first.output.flatMap((i) => (i.type === "function_call" ? [i.call_id] : []));
    expect(calls.sort()).toEqual(["c1", "c2"]);
    const half = await openai.responses.create(functionOutputs(first.id, { c1: "A" })).catch((e: unknown) => e);
    expect(half).toBeInstanceOf(OpenAI.BadRequestError);
    const done = await openai.responses.create(functionOutputs(first.id, { c1: "A", c2: "B" }));
    expect(done.output_text).toBe("Both found.");
  });

  it("takes a refused approval back as a rejection, and names a response that does not exist as not found", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: ".env" }, { id: "r1" })], [text("I was not allowed to.")]],
    });
    const openai = clientOf(server);
    // Streamed: the stream helper accepts a response that pauses with a call still in flight.
    const first = await openai.responses.stream({ model: "build", input: "Read .env." }).finalResponse();
    const ask = first.output.find((i) => i.type === "mcp_approval_request");
    expect(ask).toMatchObject({ type: "mcp_approval_request", name: "read", server_label: "arbor" });
    const second = await openai.responses.create({
      model: "build",
      previous_response_id: first.id,
      input: [
        {
          type: "mcp_approval_response",
          approval_request_id: (ask as { id: string }).id,
          approve: false,
          reason: "not that file",
        },
      ],
    });
    expect(second.status).toBe("completed");
    const call = second.output.find((i) => i.type === "mcp_call");
    expect(call).toMatchObject({ name: "read", status: "failed" });
    const gone = await openai.responses
      .create({
        model: "build",
        input: "hi",
        previous_response_id: `resp_${Buffer.from('{"s":"gone","t":"e1"}').toString("base64url")}`,
      })
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as InstanceType<typeof OpenAI.NotFoundError>).param).toBe("previous_response_id");
  });

  it("sits behind the server's token, which the client sends as its API key", async () => {
    const server = await startServer({ script: [[text("Authorized.")]], server: { token: "s3cret" } });
    const wrong = responsesClient(server, "wrong");
    expect(await wrong.responses.create({ model: "build", input: "hi" }).catch((e: unknown) => e)).toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const right = responsesClient(server, "s3cret");
    expect(
      (await right.responses.create({ model: "build", input: "hi", text: { format: { type: "text" } }, user: "u1" })).output_text,
    ).toBe("Authorized.");
    expect(await sessionCount(server)).toBe(1);
  });
  it("continues a session named as its conversation from its leaf; an unknown one, or one beside previous_response_id, is refused", async () => {
    const server = await startServer({ script: [[text("Begun over HTTP.")], [text("Continued.")]] });
    const begun = await (await server.api("/api/chat", { json: { message: "Begin" } })).text();
    const sessionId = /"session_id":"([^"]+)"/.exec(begun)?.[1] as string;
    const openai = clientOf(server);
    const next = await openai.responses.create({ model: "build", conversation: { id: sessionId }, input: "Go on" });
    expect(next.output_text).toBe("Continued.");
    const path = await server.store.getActivePath(sessionId);
    expect(path.filter((e) => e.type === "message").map((e) => e.type === "message" && e.message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    const unknown = await openai.responses.create({ conversation: "no-such-session", input: "hi" }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, param: "conversation" });
    const both = await openai.responses
      .create({ conversation: sessionId, previous_response_id: next.id, input: "hi" })
      .catch((e: unknown) => e);
    expect(both).toMatchObject({ status: 400, param: "conversation" });
    expect(await sessionCount(server)).toBe(1);
    expect((await server.store.getActivePath(sessionId)).length).toBe(path.length);
  });
});

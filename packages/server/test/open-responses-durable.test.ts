import { join } from "node:path";
import { type Script, text, toolCall } from "@arbor/testkit";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { firstSessionId, functionOutputs, responsesClient, toolResults, weatherTools } from "./helpers/open-responses.js";
import { startInstance, type TestServer, workspaceDir } from "./helpers/server.js";

/**
 * A response paused on a client function keeps what its answer needs in the store (the call waits as
 * an ask of kind `function`), so the function_call_output may come to another instance over the same
 * store, or to the server after a restart, and the run still goes on with it.
 */

const clientOf = (server: TestServer) => responsesClient(server);
const tools = weatherTools;

const instance = (root: string, script: Script) =>
  startInstance(root, { store: join(root, "store"), script, runtime: { askPollMs: 25 } });

/** A response paused on the client's get_weather call w1. */
async function paused(server: TestServer): Promise<OpenAI.Responses.Response> {
  const first = await clientOf(server).responses.create({ model: "build", input: "Weather in Oslo?", tools });
  expect(first.output.find((i) => i.type === "function_call")).toMatchObject({ name: "get_weather", call_id: "w1" });
  return first;
}

describe("a response paused on a client function, answered elsewhere", () => {
  it("goes on after the server restarts: the new server takes the run up with the client's output", async () => {
    const root = workspaceDir();
    const before = await instance(root, [[toolCall("get_weather", { city: "Oslo" }, { id: "w1" })]]);
    const first = await paused(before);
    const sessionId = await firstSessionId(before);
    await before.stop();

    const after = await instance(root, [[text("It is sunny in Oslo.")]]);
    const second = await clientOf(after)
      .responses.stream({ ...functionOutputs(first.id, { w1: "sunny, 21°C" }), tools })
      .finalResponse();
    expect(second.status).toBe("completed");
    expect(second.output_text).toBe("It is sunny in Oslo.");
    // The model read the client's output for the call, on the session's live branch.
    expect(await toolResults(after, sessionId)).toEqual([{ type: "text", value: "sunny, 21°C" }]);
    expect((await after.store.getSession(sessionId))?.status).toBe("completed");
    // The same output again answers nothing: the call is answered.
    const again = await after.api("/v1/responses", { json: functionOutputs(first.id, { w1: "rain" }) });
    expect(again.status).toBe(400);
  });

  it("goes on when another instance over the same store takes the output while the run still waits", async () => {
    const root = workspaceDir();
    const a = await instance(root, [[toolCall("get_weather", { city: "Oslo" }, { id: "w1" })], [text("Sunny in Oslo.")]]);
    const b = await instance(root, []);
    const first = await paused(a);
    const sessionId = await firstSessionId(a);
    const second = await clientOf(b).responses.create({ ...functionOutputs(first.id, { w1: "sunny" }), tools });
    // The run on the first instance took the output from the store; the second read its end from the log.
    expect(second.status).toBe("completed");
    expect(second.output_text).toBe("Sunny in Oslo.");
    expect(await toolResults(a, sessionId)).toEqual([{ type: "text", value: "sunny" }]);
  });
});

import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { clientFunctionTool } from "../../src/client-functions/client-function-tool.js";
import { openStore } from "../../src/store/open.js";
import { harness, tempDir, transcript } from "./harness.js";
import { askThenKill } from "./killed-asker.js";

/**
 * Calls of a client's functions wait as durable asks of kind `function`: the output is recorded from
 * any runtime over the store, and a run whose process died is taken up from the call with it.
 */

const weather = { name: "get_weather", description: "The weather in a city.", parameters: { type: "object" } };

/** The text of the tool results the model was sent in its call `index`. */
function toolResultsSent(model: ReturnType<typeof scriptedModel>, index: number): string {
  return JSON.stringify(model.calls[index]?.prompt.filter((m) => m.role === "tool"));
}

describe("client functions", () => {
  it("a call waits as an ask listed by every runtime; its output reaches the run waiting here, once", async () => {
    const model = scriptedModel([[toolCall("get_weather", { city: "Oslo" }, { id: "w1" })], [text("Sunny in Oslo.")]]);
    const h = await harness({ model, askPollMs: 25 });
    const handle = h.runtime.runs.run({ prompt: "weather?", tools: [clientFunctionTool(weather, [weather])] });
    // Read by hand up to the wait: the rest of the stream stays unread, and the run goes on.
    const events = handle[Symbol.asyncIterator]();
    for (let next = await events.next(); !next.done; next = await events.next()) {
      if (next.value.type === "tool_progress" && next.value.metadata?.awaiting === "client_output") break;
    }
    const [call] = await h.runtime.asks.listFunctionCalls(handle.sessionId);
    expect(call).toMatchObject({ callId: "w1", name: "get_weather", functions: [weather] });
    // Not among the asks a person answers: the client program does.
    expect(await h.runtime.asks.listPending(handle.sessionId)).toEqual([]);
    const answered = await h.runtime.asks.answerFunctions(handle.sessionId, [{ callId: "w1", output: "sunny" }]);
    expect(answered.run).toBeUndefined();
    expect((await handle.result).status).toBe("done");
    expect(toolResultsSent(model, 1)).toContain("sunny");
    await expect(h.runtime.asks.answerFunctions(handle.sessionId, [{ callId: "w1", output: "rain" }])).rejects.toMatchObject({
      code: "ask_not_found",
    });
  });

  it("a run killed (kill -9) while its call waited is taken up, with the client's functions, by the runtime given the output", async () => {
    const dir = join(tempDir(), "store");
    const cwd = tempDir();
    const home = tempDir();
    const [sessionId] = (await askThenKill("client-function-and-wait.mjs", [dir, cwd, home])) as [string];

    const model = scriptedModel([[text("Sunny, the client says.")]]);
    const b = await harness({ store: await openStore(dir), cwd, arborHome: home, model, askPollMs: 25 });
    const { run } = await b.runtime.asks.answerFunctions(sessionId, [{ callId: "w1", output: "sunny, 21°C" }]);
    expect((await run?.result)?.status).toBe("done");
    expect(toolResultsSent(model, 0)).toContain("sunny, 21°C");
    // The model was offered the client's function again.
    expect(JSON.stringify(model.calls[0]?.options.tools)).toContain("get_weather");
    expect((await transcript(b.store, sessionId)).at(-1)).toContain("Sunny, the client says.");
  });
});

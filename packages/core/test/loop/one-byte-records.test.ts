import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { cutText } from "../../src/model/text.js";
import { collect, harness, printTool } from "./harness.js";

/**
 * A run over ASCII text records ASCII text. The loop cuts texts for its events and entries (the input
 * `llm_start` shows, `llm_end`'s output, a tool call's motivation, an assistant message's description);
 * a cut marked with a character above U+00FF would make V8 keep each of those strings, and every JSON
 * line they are written into, as UTF-16: twice the memory and a slower encoding, on every step.
 */
const NOT_ASCII = /[\u0080-\uffff]/;

describe("what a step records", () => {
  it("cutText marks a cut with ASCII", () => {
    expect(cutText("abcdef", 3)).toBe("abc...");
    expect(cutText("abc", 3)).toBe("abc");
    expect(NOT_ASCII.test(cutText("x".repeat(5000), 10))).toBe(false);
  });

  it("stays ASCII when everything the run was given is, although the loop cut texts in its events and entries", async () => {
    const long = "the session reads a file and checks each line ".repeat(30);
    const model = scriptedModel([[text(long), toolCall("print", { size: 3000 })], [text(long)]]);
    const { runtime, store } = await harness({ model, tools: [printTool] });
    const { id } = await store.createSession();
    const { events, result } = await collect(runtime.runs.run({ sessionId: id, prompt: "go" }));
    expect(result.status).toBe("done");
    await runtime.events.settled();

    // The texts were cut: the second call's input (the 3,000-character result), each call's output
    // (over 1,000 characters), the tool call's motivation and the description (over 200).
    const llmStarts = events.filter((e) => e.type === "llm_start");
    expect(llmStarts[1]?.input.endsWith("...")).toBe(true);
    expect(events.find((e) => e.type === "llm_end")?.output.endsWith("...")).toBe(true);
    expect(events.find((e) => e.type === "tool_start")?.motivation.endsWith("...")).toBe(true);

    const logged = JSON.stringify(await store.listEvents(id));
    const entries = JSON.stringify(await store.getActivePath(id));
    expect(logged).toContain('"description":"the session reads');
    expect(NOT_ASCII.exec(logged)?.[0]).toBeUndefined();
    expect(NOT_ASCII.exec(entries)?.[0]).toBeUndefined();
  });
});

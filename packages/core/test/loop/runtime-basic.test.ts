import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { error, reasoning, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { ModelResolver } from "../../src/llm/resolved-model.js";
import { RunEventSchema } from "../../src/model/run-events.js";
import { collect, harness, toolTurnTypes, transcript, types } from "./harness.js";

describe("runtime.run", () => {
  it("streams a text answer, persists user and assistant messages, and ends with done", async () => {
    const model = scriptedModel([[text("Hello there", { chunks: 3 }), usage({ inputTokens: 12, outputTokens: 3 })]], {
      provider: "openai",
      modelId: "gpt-4o",
    });
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "Say hello" });
    const { events, result } = await collect(handle);

    for (const e of events) expect(RunEventSchema.parse(e)).toEqual(e);
    expect(events.every((e) => e.session_id === handle.sessionId)).toBe(true);
    expect(types(events)).toEqual(["llm_start", "token", "token", "token", "llm_end", "done"]);
    expect(
      events
        .filter((e) => e.type === "token")
        .map((e) => e.content)
        .join(""),
    ).toBe("Hello there");
    expect(result).toMatchObject({ status: "done", stopReason: "finished", text: "Hello there", steps: 1 });
    expect(result.usage).toMatchObject({ input: 12, output: 3 });
    // gpt-4o is priced in the catalog: 12 × $2.5 + 3 × $10 per million.
    expect(result.cost).toBeCloseTo((12 * 2.5 + 3 * 10) / 1e6, 12);

    expect(await transcript(store, handle.sessionId)).toEqual(["user: Say hello", "assistant: Hello there"]);
    const meta = await store.getSession(handle.sessionId);
    expect(meta).toMatchObject({ title: "Say hello", agentId: "build", totalMessages: 2 });
    const path = await store.getActivePath(handle.sessionId);
    const assistant = path[1];
    expect(assistant?.type === "message" && assistant.message).toMatchObject({
      role: "assistant",
      model: "openai/gpt-4o",
      finishReason: "stop",
      tokens: { input: 12, output: 3 },
      description: "Hello there",
    });
  });

  it("runs a tool call, persists its result, and gives the result to the next step", async () => {
    const model = scriptedModel([
      [text("Reading."), toolCall("read", { path: "notes.txt" }, { id: "c1" })],
      [text("The file says hi.")],
    ]);
    const { runtime, store, cwd } = await harness({ model });
    writeFileSync(join(cwd, "notes.txt"), "hi\n");
    const handle = runtime.runs.run({ prompt: "What is in notes.txt?" });
    const { events, result } = await collect(handle);

    expect(types(events)).toEqual(toolTurnTypes(1, 1));
    // Each model call's end says what it answered, as its start does.
    const llm = events.filter((e) => e.type === "llm_start" || e.type === "llm_end").map((e) => "input" in e && e.input);
    expect(llm[0]).toBe("What is in notes.txt?");
    expect(llm[1]).toBe(llm[0]);
    expect(llm[3]).toBe(llm[2]);
    const start = events.find((e) => e.type === "tool_start");
    expect(start).toMatchObject({ call_id: "c1", tool: "read", input: '{"path":"notes.txt"}', motivation: "Reading." });
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ call_id: "c1", tool: "read", is_error: false, cached: false });
    expect(end?.type === "tool_end" && end.output).toContain("hi");
    expect(result).toMatchObject({ status: "done", steps: 2, text: "The file says hi." });

    // The second call's prompt ends with the assistant call and the tool result.
    const prompt = model.calls[1]?.prompt ?? [];
    expect(prompt[0]?.role).toBe("system");
    expect(prompt.slice(-2).map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(model.calls[0]?.options.tools?.map((t) => t.name)).toContain("read");

    const lines = await transcript(store, handle.sessionId);
    expect(lines[0]).toBe("user: What is in notes.txt?");
    expect(lines[1]).toBe("assistant: Reading. | call read");
    expect(lines[2]).toMatch(/^tool: result .*hi/);
    expect(lines[3]).toBe("assistant: The file says hi.");
  });

  it("a call the model gave no text for is motivated by its description argument, else by what the tool does", async () => {
    const model = scriptedModel([
      [
        toolCall("bash", { command: "true", description: "Check the build" }, { id: "b" }),
        toolCall("list", { path: "." }, { id: "l" }),
      ],
      [text("ok")],
    ]);
    const { runtime } = await harness({ model, permission: [{ permission: "*", pattern: "*", action: "allow" }] });
    const { events } = await collect(runtime.runs.run({ prompt: "go" }));
    // The calls run at once and may start in either order.
    const motivations = new Map(events.flatMap((e) => (e.type === "tool_start" ? [[e.call_id, e.motivation] as const] : [])));
    expect(motivations.get("b")).toBe("Check the build");
    expect(motivations.get("l")).toBe("List a folder as a tree (folders first, then files).");
  });

  it("emits reasoning events and keeps reasoning parts", async () => {
    const model = scriptedModel([[reasoning("thinking hard", { chunks: 2 }), text("done")]]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "think" });
    const { events } = await collect(handle);
    expect(types(events).filter((t) => t === "reasoning")).toHaveLength(2);
    expect(await transcript(store, handle.sessionId)).toEqual(["user: think", "assistant: thinking hard | done"]);
  });

  it("continues a session: the second run sees the first run's messages", async () => {
    const model = scriptedModel([[text("one")], [text("two")]]);
    const { runtime, store } = await harness({ model });
    const first = runtime.runs.run({ prompt: "first" });
    await first.result;
    const second = runtime.runs.run({ sessionId: first.sessionId, prompt: "second" });
    expect((await second.result).status).toBe("done");
    expect(second.sessionId).toBe(first.sessionId);
    expect(model.calls[1]?.prompt.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(await transcript(store, first.sessionId)).toEqual(["user: first", "assistant: one", "user: second", "assistant: two"]);
  });

  it("turns invalid JSON arguments and unknown tools into errors the model sees, and goes on", async () => {
    const model = scriptedModel([
      [toolCall("read", '{"path": "a.txt"', { id: "bad" }), toolCall("teleport", { to: "mars" }, { id: "unknown" })],
      [text("Sorry.")],
    ]);
    const { runtime, store } = await harness({ model });
    const handle = runtime.runs.run({ prompt: "go" });
    const { events, result } = await collect(handle);
    expect(result.status).toBe("done");
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => e.type === "tool_end" && [e.call_id, e.is_error])).toEqual(
      expect.arrayContaining([
        ["bad", true],
        ["unknown", true],
      ]),
    );
    const outputs = ends.map((e) => (e.type === "tool_end" ? e.output : "")).join("\n");
    expect(outputs).toContain("not valid JSON");
    expect(outputs).toContain('Unknown tool "teleport"');
    const lines = await transcript(store, handle.sessionId);
    expect(lines.filter((l) => l.startsWith("tool:"))).toHaveLength(2);
  });

  it("stops at maxTurns: the last step is offered no tools", async () => {
    const loopStep = [toolCall("list", {})];
    const model = scriptedModel([loopStep, [toolCall("glob", { pattern: "*" })], [text("Here is what I found.")]]);
    const { runtime } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "explore", maxTurns: 3 }));
    expect(result).toMatchObject({ status: "done", stopReason: "max_turns", steps: 3, text: "Here is what I found." });
    expect(model.calls[0]?.options.tools).toBeDefined();
    expect(model.calls[2]?.options.tools).toBeUndefined();
    const system = model.calls[2]?.prompt[0];
    expect(system?.role === "system" && system.content).toMatch(/tool/i);
  });

  it("names a new session with the pool's title model while the first step runs", async () => {
    const main = scriptedModel([[text("answer")]]);
    const titler = scriptedModel([[text('"Fixing the parser."')]]);
    const models: ModelResolver = {
      resolve: () => {
        throw new Error("not used");
      },
      forScenario: (s) =>
        s === "title" ? { ref: "testkit/title", model: titler, info: { limit: { context: 1000, output: 100 } } } : undefined,
    };
    const { runtime, store } = await harness({ model: main, models });
    const handle = runtime.runs.run({ prompt: "the parser breaks on empty lines\nplease fix" });
    await handle.result;
    expect((await store.getSession(handle.sessionId))?.title).toBe("Fixing the parser");
    expect(titler.calls[0]?.method).toBe("generate");
    // A continued session keeps its title.
    await runtime.runs.run({ sessionId: handle.sessionId, prompt: "more", model: scriptedModel([[text("x")]]) }).result;
    expect(titler.callCount).toBe(1);
  });

  it("a failing title model falls back to the prompt's first line", async () => {
    const models: ModelResolver = {
      resolve: () => {
        throw new Error("not used");
      },
      forScenario: () => ({
        ref: "testkit/title",
        model: scriptedModel([[error(500)]]),
        info: { limit: { context: 1000, output: 100 } },
      }),
    };
    const { runtime, store } = await harness({ model: scriptedModel([[text("answer")]]), models });
    const handle = runtime.runs.run({ prompt: "  first line\nsecond" });
    expect((await handle.result).status).toBe("done");
    expect((await store.getSession(handle.sessionId))?.title).toBe("first line");
  });

  it("the plan agent gets the plan-mode reminder; switching to build gets the switch reminder, both marked synthetic", async () => {
    const model = scriptedModel([[text("Plan: 1. edit a.ts")], [text("Done.")]]);
    const { runtime, store } = await harness({ model });
    const plan = runtime.runs.run({ prompt: "plan the change", agent: "plan" });
    await plan.result;
    const names = model.calls[0]?.options.tools?.map((t) => t.name) ?? [];
    expect(names).not.toContain("edit");
    expect(names).not.toContain("write");
    await runtime.runs.run({ sessionId: plan.sessionId, prompt: "go ahead" }).result;
    const users = (await store.getActivePath(plan.sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [e.message] : [],
    );
    expect(users[0]?.content[1]).toMatchObject({ synthetic: true, text: expect.stringContaining("plan mode") });
    expect(users[1]?.content[1]).toMatchObject({ synthetic: true, text: expect.stringContaining("build agent") });
    expect(users[1]?.content[0]).toMatchObject({ text: "go ahead" });
  });
});

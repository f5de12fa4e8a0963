import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { Entry } from "../../src/model/entry.js";
import { pythonAcrossCalls } from "../helpers/python-steps.js";
import { collect, harness } from "./harness.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

type ToolPart = { type: string; toolName: string; output: { type: string; value: string }; metadata?: Record<string, unknown> };

function toolResults(path: readonly Entry[]): ToolPart[] {
  return path.flatMap((e) => (e.type === "message" && e.message.role === "tool" ? (e.message.content as ToolPart[]) : []));
}

describe("the assistant layer over the fake OpenAI server", () => {
  it("computes with python_repl across three calls, remembers and later finds a memory, and has a dangerous command blocked", async () => {
    const secret = `sk-${"Zx9".repeat(10)}`;
    const server = await startFakeOpenAI({
      script: [
        ...pythonAcrossCalls(),
        [toolCall("memory_write", { content: "The answer to the user's sum is 42.", target: "long_term" }, { id: "mem1" })],
        [toolCall("bash", { command: "rm -rf ~/" }, { id: "bad1" })],
        [toolCall("bash", { command: `echo key=${secret}` }, { id: "sec1" })],
        [text("The answer is 42.")],
        // The second run, in the same session: the memory is searched for and found.
        [toolCall("memory_search", { query: "answer sum" }, { id: "find1" })],
        [text("You asked before: 42.")],
      ],
    });
    servers.push(server);
    const config = resolveConfig([{ source: "test", value: { baseURL: server.url } }]);
    const { runtime, store, cwd } = await harness({ config, model: "openai-compatible/fake" });

    const first = await collect(runtime.runs.run({ prompt: "Compute 21 doubled and remember it." }));
    expect(first.result).toMatchObject({ status: "done", text: "The answer is 42." });
    const sessionId = first.result.sessionId;
    let results = toolResults(await store.getActivePath(sessionId));
    expect(results.map((r) => [r.toolName, r.output.type])).toEqual([
      ["python_repl", "text"],
      ["python_repl", "text"],
      ["python_repl", "text"],
      ["memory_write", "text"],
      ["bash", "error-text"],
      ["bash", "text"],
    ]);
    // State survived three calls in one Python session.
    expect(results[2]!.output.value).toBe("42");
    expect(readFileSync(join(cwd, "MEMORY.md"), "utf8")).toBe("- The answer to the user's sum is 42.\n");
    // The dangerous command was refused before it ran, the decision is on the stored result.
    expect(results[4]!.output.value).toMatch(/^Blocked by the security gateway \(rule "recursive-delete-root"\)/);
    expect(results[4]!.metadata?.security).toEqual({
      decision: "blocked",
      rule: "recursive-delete-root",
      reason: expect.stringContaining("home folder"),
    });
    // The secret is redacted in the stored output and in the stored tool-call arguments.
    expect(results[5]!.output.value).toContain("key=[REDACTED:openai-key]");
    const stored = JSON.stringify(await store.getActivePath(sessionId));
    expect(stored).not.toContain(secret);
    // ...in the run's event stream (the call's arguments as shown live)...
    expect(JSON.stringify(first.events)).not.toContain(secret);
    expect(first.events.find((e) => e.type === "tool_start" && e.call_id === "sec1")).toMatchObject({
      input: expect.stringContaining("[REDACTED:openai-key]"),
    });
    // ...and in what the model was sent on the next step.
    expect(JSON.stringify(server.requests[6]?.body)).not.toContain(secret);

    const second = await collect(runtime.runs.run({ sessionId, prompt: "What was the answer?" }));
    expect(second.result).toMatchObject({ status: "done", text: "You asked before: 42." });
    results = toolResults(await store.getActivePath(sessionId));
    expect(results.at(-1)).toMatchObject({ toolName: "memory_search" });
    expect(results.at(-1)!.output.value).toMatch(/^\[workspace:MEMORY\.md:1\] .*\n- The answer to the user's sum is 42\./);
    // The new run's system prompt carries MEMORY.md.
    const system = (server.requests[7]!.body as { messages: Array<{ role: string; content: string }> }).messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("The answer to the user's sum is 42.");
    expect(existsSync(join(cwd, "memory"))).toBe(false);
  });
});

describe("SECURITY_ENABLED", () => {
  const rules = [{ id: "no-echo", kind: "command", pattern: "^echo\\b", reason: "echo is not allowed here" }];
  const script = () => scriptedModel([[toolCall("bash", { command: "echo hi" }, { id: "e1" })], [text("ok")]]);

  it.each([
    [true, "error-text", /^Blocked by the security gateway \(rule "no-echo"\): echo is not allowed here\./],
    [false, "text", /^hi\n/],
  ])("enabled=%s: the gateway's rules apply only when it is on", async (enabled, type, output) => {
    const config = resolveConfig([{ source: "test", value: { security: { enabled, rules } } }]);
    const { runtime, store } = await harness({ config, model: script() });
    const { result } = await collect(runtime.runs.run({ prompt: "say hi" }));
    const [part] = toolResults(await store.getActivePath(result.sessionId));
    expect(part?.output.type).toBe(type);
    expect(part?.output.value).toMatch(output);
  });
});

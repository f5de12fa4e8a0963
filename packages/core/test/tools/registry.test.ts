import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ArborError } from "../../src/errors.js";
import { builtinTools } from "../../src/runtime/builtin-tools.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool, type ToolOutcome } from "../../src/tools/tool.js";
import { fakeContext, tempDir } from "./helpers.js";

const echo = defineTool({
  name: "echo",
  description: "Echo the text back.",
  input: z.strictObject({ text: z.string(), times: z.number().int().min(1).default(1) }),
  async execute(input) {
    return { output: input.text.repeat(input.times), title: "echo" };
  },
});

function registry(...extra: Parameters<ToolRegistry["register"]>) {
  return new ToolRegistry().register(echo, ...extra);
}

describe("ToolRegistry", () => {
  it("runs a tool with parsed arguments, given as an object or as JSON text", async () => {
    const ctx = fakeContext(tempDir());
    const reg = registry();
    expect(await reg.invoke("echo", { text: "hi", times: 2 }, ctx)).toEqual({ isError: false, output: "hihi", title: "echo" });
    expect(await reg.invoke("echo", '{"text":"yo"}', ctx)).toMatchObject({ isError: false, output: "yo" });
  });

  it("lists tools with a JSON schema of their input (defaults optional)", () => {
    const [info] = registry().list();
    expect(info?.name).toBe("echo");
    expect(info?.description).toBe("Echo the text back.");
    expect(info?.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" }, times: { type: "integer", minimum: 1, default: 1 } },
      required: ["text"],
      additionalProperties: false,
    });
    expect(registry().list((name) => name !== "echo")).toEqual([]);
  });

  it("converts a tool's schema once for every run's registry, and a reused name gets its new tool's schema", () => {
    const base = registry();
    const extra = defineTool({
      name: "extra",
      description: "A run's own tool.",
      input: z.object({ n: z.number() }),
      async execute() {
        return { output: "" };
      },
    });
    const first = base.withTools([extra]).list();
    const second = base.withTools([extra]).list();
    expect(second.map((t) => t.inputSchema)).toEqual(first.map((t) => t.inputSchema));
    for (const [i, info] of second.entries()) expect(info.inputSchema).toBe(first[i]?.inputSchema);
    base.unregister("echo");
    base.register({ ...echo, input: z.object({ other: z.boolean() }) });
    expect(base.list()[0]?.inputSchema).toMatchObject({ properties: { other: { type: "boolean" } } });
  });

  it("answers an unknown tool name with an error listing the available tools", async () => {
    const out = await registry().invoke("ech0", {}, fakeContext(tempDir()));
    expect(out).toMatchObject({ isError: true, code: "unknown_tool" });
    expect(out.output).toContain('Unknown tool "ech0"');
    expect(out.output).toContain("Available tools: echo");
  });

  it("treats a registered tool outside the agent's set as unknown", async () => {
    const out = await registry().invoke("echo", { text: "x" }, fakeContext(tempDir()), { available: ["read"] });
    expect(out).toMatchObject({ isError: true, code: "unknown_tool" });
    expect(out.output).toContain("Available tools: read");
  });

  it("answers invalid JSON text with an error the model can read", async () => {
    const out = await registry().invoke("echo", '{"text": "unterminated', fakeContext(tempDir()));
    expect(out).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(out.output).toMatch(/arguments for tool "echo" are not valid JSON/);
  });

  it("names each bad field when arguments fail the schema", async () => {
    const ctx = fakeContext(tempDir());
    const missing = await registry().invoke("echo", { times: 0 }, ctx);
    expect(missing).toMatchObject({ isError: true, code: "invalid_tool_input" });
    expect(missing.output).toContain('Invalid arguments for tool "echo"');
    expect(missing.output).toMatch(/- text: .*expected string/);
    expect(missing.output).toMatch(/- times: .*>=1/);

    const extra = await registry().invoke("echo", { text: "a", txet: "b" }, ctx);
    expect(extra.output).toContain('"txet": not a parameter of this tool');

    const notObject = await registry().invoke("echo", "[1,2]", ctx);
    expect(notObject.output).toMatch(/- \(arguments\): .*expected object/);
  });

  it("turns a throwing tool into an error outcome, keeping ArborError codes", async () => {
    const boom = defineTool({
      name: "boom",
      description: "fails",
      input: z.object({ kind: z.enum(["plain", "arbor"]) }),
      async execute(input): Promise<never> {
        if (input.kind === "arbor") throw new ArborError("permission_rejected", "The user said no.");
        throw new TypeError("x is undefined");
      },
    });
    const reg = registry(boom);
    const ctx = fakeContext(tempDir());
    expect(await reg.invoke("boom", { kind: "plain" }, ctx)).toEqual({
      isError: true,
      code: "tool_failed",
      output: 'Tool "boom" failed: x is undefined',
    });
    expect(await reg.invoke("boom", { kind: "arbor" }, ctx)).toEqual({
      isError: true,
      code: "permission_rejected",
      output: "The user said no.",
    });
  });

  it("reports an aborted call as interrupted", async () => {
    const hang = defineTool({
      name: "hang",
      description: "waits for abort",
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<never>((_resolve, reject) => ctx.abort.addEventListener("abort", () => reject(new Error("stopped")))),
    });
    const ctx = fakeContext(tempDir());
    const pending = registry(hang).invoke("hang", {}, ctx);
    ctx.controller.abort();
    expect(await pending).toEqual({ isError: true, code: "aborted", output: "[Tool execution was interrupted]" });
  });

  it("refuses duplicate and malformed tool names", () => {
    expect(() => registry(echo)).toThrow(/already registered/);
    expect(() => new ToolRegistry().register({ ...echo, name: "has space" })).toThrow(/letters, digits/);
  });

  describe("hooks", () => {
    it("before may rewrite the input (validated again) and after may rewrite the outcome", async () => {
      const seen: unknown[] = [];
      const reg = registry();
      reg.addHook({
        before: (_call, input) => ({ input: { ...(input as object), text: "rewritten" } }),
        after: (call, input, outcome): ToolOutcome => {
          seen.push({ tool: call.tool, callId: call.callId, input });
          return { ...outcome, output: `${outcome.output}!` };
        },
      });
      const out = await reg.invoke("echo", { text: "orig" }, fakeContext(tempDir()));
      expect(out.output).toBe("rewritten!");
      expect(seen).toEqual([{ tool: "echo", callId: "call_test", input: { text: "rewritten", times: 1 } }]);
    });

    it("a before hook that throws blocks the call with its message; an invalid rewrite is reported", async () => {
      const reg = registry();
      const remove = reg.addHook({
        before: () => {
          throw new ArborError("permission_denied", "Policy forbids echo.");
        },
      });
      expect(await reg.invoke("echo", { text: "a" }, fakeContext(tempDir()))).toMatchObject({
        isError: true,
        code: "permission_denied",
        output: "Policy forbids echo.",
      });
      remove();
      reg.addHook({ before: () => ({ input: { text: 5 } }) });
      const out = await reg.invoke("echo", { text: "a" }, fakeContext(tempDir()));
      expect(out).toMatchObject({ isError: true, code: "invalid_tool_input" });
    });

    it("after sees errors too", async () => {
      const outcomes: ToolOutcome[] = [];
      const reg = new ToolRegistry({ hooks: [{ after: (_c, _i, outcome) => void outcomes.push(outcome) }] }).register(echo);
      await reg.invoke("echo", {}, fakeContext(tempDir()));
      expect(outcomes[0]).toMatchObject({ isError: true, code: "invalid_tool_input" });
    });
  });

  it("cuts long outputs and keeps the full text in the blob store", async () => {
    const blobs = new MemoryBlobStore();
    const reg = new ToolRegistry({ blobs, limits: { maxLines: 3, maxBytes: 1000 } }).register(echo);
    const out = await reg.invoke("echo", { text: "line\n", times: 10 }, fakeContext(tempDir()));
    expect(out.isError).toBe(false);
    expect(out.truncated?.fullOutputRef).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(out.output.startsWith("line\nline\nline\n\n[Output truncated: showed the first 3 of 10 lines")).toBe(true);
    expect(out.output).toContain(`path "blob:${out.truncated?.fullOutputRef}" and offset 4`);
    const full = await blobs.get(out.truncated!.fullOutputRef);
    expect(Buffer.from(full!).toString()).toBe("line\n".repeat(10));
  });
});

describe("builtinTools", () => {
  it("registers the built-in set, each with an object JSON schema the model can call", () => {
    const list = new ToolRegistry().register(...builtinTools()).list();
    expect(list.map((t) => t.name)).toEqual([
      "read",
      "write",
      "edit",
      "list",
      "glob",
      "grep",
      "bash",
      "fetch",
      "python_repl",
      "memory_write",
      "memory_search",
      "search_knowledge_base",
      "todowrite",
      "todoread",
      "skill",
      "goal",
      "explore",
      "delegate",
      "plan_create",
      "plan_update",
      "question",
      "plan_enter",
      "plan_exit",
    ]);
    for (const tool of list) {
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });
});

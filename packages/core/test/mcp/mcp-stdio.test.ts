import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { McpServerConfig } from "../../src/config/schema.js";
import { type RunEvent, RunEventSchema } from "../../src/model/run-events.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { abortAtFirstProgress, everythingStdio, filesystemStdio } from "./servers.js";

const CHANGING_SERVER = fileURLToPath(new URL("./fixtures/changing-server.mjs", import.meta.url));

function mcpConfig(servers: Record<string, McpServerConfig>, toolCacheTtl = 3600) {
  return resolveConfig([{ source: "test", value: { mcp: { servers, toolCacheTtl } } }]);
}

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((e) => (e.type === "tool_end" ? [e] : []));
}

/** The tool-result parts stored on the session's path, by call id. */
async function toolParts(
  store: Awaited<ReturnType<typeof harness>>["store"],
  sessionId: string,
): Promise<Map<string, Record<string, unknown>>> {
  const parts = new Map<string, Record<string, unknown>>();
  for (const entry of await store.getActivePath(sessionId)) {
    if (entry.type !== "message" || entry.message.role !== "tool") continue;
    for (const part of entry.message.content) parts.set(part.toolCallId, part as Record<string, unknown>);
  }
  return parts;
}

describe("MCP tools over stdio", () => {
  it("offers a server's tools as mcp__<server>__<tool> with the server's JSON schemas and runs them in a run", async () => {
    const cwd = tempDir();
    const file = join(cwd, "note.txt");
    const script = scriptedModel([
      [toolCall("mcp__fs__write_file", { path: file, content: "hello from mcp" }, { id: "w1" })],
      [toolCall("mcp__fs__read_text_file", { path: file }, { id: "r1" })],
      [text("done")],
    ]);
    const { runtime, store } = await harness({
      model: script,
      cwd,
      config: mcpConfig({ fs: filesystemStdio(cwd) }),
    });
    const handle = runtime.runs.run({ prompt: "write and read a note" });
    const { events, result } = await collect(handle);
    for (const e of events) expect(RunEventSchema.parse(e)).toEqual(e);
    expect(result.status).toBe("done");
    const offered = script.calls[0]?.options.tools?.map((t) => t.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(["mcp__fs__write_file", "mcp__fs__read_text_file", "read", "bash"]));
    const readTool = script.calls[0]?.options.tools?.find((t) => t.name === "mcp__fs__read_text_file");
    expect(readTool && "inputSchema" in readTool && readTool.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" } },
    });
    expect(readFileSync(file, "utf8")).toBe("hello from mcp");
    const ends = toolEnds(events);
    expect(ends.map((e) => [e.call_id, e.is_error, e.cached])).toEqual([
      ["w1", false, false],
      ["r1", false, false],
    ]);
    expect(ends[1]?.output).toBe("hello from mcp");
    const part = (await toolParts(store, handle.sessionId)).get("r1");
    expect(part?.metadata).toMatchObject({
      server: "fs",
      tool: "read_text_file",
      parts: [{ type: "text", text: "hello from mcp", chars: 14 }],
    });
  });

  it("gives an isError result to the model as a tool error naming the server, and the run goes on", async () => {
    const cwd = tempDir();
    const outside = join(tempDir(), "secret.txt");
    writeFileSync(outside, "no");
    const model = scriptedModel([[toolCall("mcp__fs__read_text_file", { path: outside }, { id: "x" })], [text("ok")]]);
    const { runtime } = await harness({ model, cwd, config: mcpConfig({ fs: filesystemStdio(cwd) }) });
    const { events, result } = await collect(runtime.runs.run({ prompt: "read outside" }));
    expect(result.status).toBe("done");
    const end = toolEnds(events)[0];
    expect(end?.is_error).toBe(true);
    expect(end?.output).toMatch(/MCP tool "read_text_file" on server "fs" reported an error: .*(denied|outside|not allowed)/is);
  });

  it("arguments the server refuses come back as a tool error naming the server", async () => {
    const model = scriptedModel([[toolCall("mcp__ev__get-sum", { a: "one" }, { id: "bad" })], [text("ok")]]);
    const { runtime, store } = await harness({ model, config: mcpConfig({ ev: everythingStdio() }) });
    const handle = runtime.runs.run({ prompt: "sum" });
    const { events, result } = await collect(handle);
    expect(result.status).toBe("done");
    const end = toolEnds(events)[0];
    expect(end?.is_error).toBe(true);
    expect(end?.output).toMatch(
      /(MCP server "ev" refused the request|MCP tool "get-sum" on server "ev" reported an error): .*(a|b)/s,
    );
    expect((await toolParts(store, handle.sessionId)).get("bad")?.output).toMatchObject({ type: "error-text" });
  });

  it("applies permission rules to MCP tools by name pattern", async () => {
    const cwd = tempDir();
    const file = join(cwd, "x.txt");
    const asked: string[] = [];
    const model = scriptedModel([
      [toolCall("mcp__fs__write_file", { path: file, content: "x" }, { id: "w" })],
      [text("stopped")],
    ]);
    const { runtime } = await harness({
      model,
      cwd,
      config: mcpConfig({ fs: filesystemStdio(cwd) }),
      permission: { "mcp__fs__*": "ask" },
      onPermission: (pending) => {
        asked.push(pending.request.permission);
        return "reject";
      },
    });
    const { events } = await collect(runtime.runs.run({ prompt: "write" }));
    expect(asked).toEqual(["mcp__fs__write_file"]);
    expect(toolEnds(events)[0]).toMatchObject({ is_error: true });
    expect(existsSync(file)).toBe(false);

    const denied = scriptedModel([[text("nothing to call")]]);
    const second = await harness({
      model: denied,
      cwd,
      config: mcpConfig({ fs: filesystemStdio(cwd) }),
      permission: { "mcp__fs__*": "deny" },
    });
    await collect(second.runtime.runs.run({ prompt: "hi" }));
    const names = denied.calls[0]?.options.tools?.map((t) => t.name) ?? [];
    expect(names.some((n) => n.startsWith("mcp__fs__"))).toBe(false);
    expect(names).toContain("read");
  });

  it("keeps images and structuredContent as parts and answers a repeated read-only call from the cache", async () => {
    const model = scriptedModel(
      [
        [
          toolCall("mcp__ev__get-tiny-image", {}, { id: "img" }),
          toolCall("mcp__ev__get-structured-content", { location: "Chicago" }, { id: "sc" }),
          toolCall("mcp__ev__echo", { message: "once" }, { id: "e1" }),
        ],
        [toolCall("mcp__ev__echo", { message: "once" }, { id: "e2" })],
        [text("done")],
      ],
      { provider: "anthropic.messages" },
    );
    const { runtime, store } = await harness({ model, config: mcpConfig({ ev: everythingStdio() }) });
    const handle = runtime.runs.run({ prompt: "show me" });
    const { events, result } = await collect(handle);
    expect(result.status).toBe("done");
    const ends = new Map(toolEnds(events).map((e) => [e.call_id, e]));
    expect(ends.get("img")?.output).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(ends.get("e1")).toMatchObject({ cached: false, is_error: false, output: "Echo: once" });
    expect(ends.get("e2")).toMatchObject({ cached: true, is_error: false, output: "Echo: once" });
    const parts = await toolParts(store, handle.sessionId);
    const imageMeta = parts.get("img")?.metadata as { parts: Record<string, unknown>[] } | undefined;
    const image = imageMeta?.parts.find((p) => p.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(Number(image?.bytes ?? 0)).toBeGreaterThan(0);
    // The model is sent the image itself beside its label.
    const sent = model.calls[1]!.prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).find(
      (p) => p.type === "tool-result" && p.toolCallId === "img",
    );
    const output = sent?.type === "tool-result" ? sent.output : undefined;
    expect(output?.type).toBe("content");
    const file = output?.type === "content" ? output.value.find((p) => p.type === "file") : undefined;
    expect(file).toMatchObject({ type: "file", mediaType: "image/png", data: { type: "data", data: expect.any(String) } });
    expect(file?.type === "file" && file.data.type === "data" ? Buffer.from(file.data.data as string, "base64").length : 0).toBe(
      Number(image?.bytes),
    );
    expect(parts.get("sc")?.metadata).toMatchObject({
      server: "ev",
      tool: "get-structured-content",
      structuredContent: { temperature: expect.any(Number), conditions: expect.any(String) },
    });
  });

  it("reports progress live, and a call that outlives timeoutMs is a clear error naming the server", async () => {
    const model = scriptedModel([
      [toolCall("mcp__ev__trigger-long-running-operation", { duration: 1.5, steps: 3 }, { id: "p" })],
      [toolCall("mcp__ev__trigger-long-running-operation", { duration: 20, steps: 1 }, { id: "slow" })],
      [text("done")],
    ]);
    const { runtime } = await harness({ model, config: mcpConfig({ ev: everythingStdio({ timeoutMs: 3000 }) }) });
    const { events, result } = await collect(runtime.runs.run({ prompt: "go" }));
    expect(result.status).toBe("done");
    const progress = events.filter((e) => e.type === "tool_progress");
    // The SDK hands notifications on a microtask later than responses, so the last report may land
    // after the result and is then dropped; the earlier ones always arrive, in order.
    expect(progress.map((e) => e.type === "tool_progress" && e.metadata).slice(0, 2)).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
    ]);
    const ends = new Map(toolEnds(events).map((e) => [e.call_id, e]));
    expect(ends.get("p")).toMatchObject({ is_error: false });
    expect(ends.get("slow")?.is_error).toBe(true);
    expect(ends.get("slow")?.output).toMatch(/MCP server "ev" did not answer within 3000 ms/);
  });

  it("a server killed mid-call is a tool error naming it, and it is started again on the next call", async () => {
    let pid: number | undefined;
    const { runtime } = await harness({
      model: scriptedModel([
        [toolCall("mcp__ev__trigger-long-running-operation", { duration: 30, steps: 30 }, { id: "k" })],
        [toolCall("mcp__ev__echo", { message: "back" }, { id: "after" })],
        [text("done")],
      ]),
      config: mcpConfig({ ev: everythingStdio() }),
    });
    const handle = runtime.runs.run({ prompt: "go" });
    const events: RunEvent[] = [];
    for await (const event of handle) {
      events.push(event);
      // The first progress report proves the call is in flight on the server.
      if (event.type === "tool_progress" && pid === undefined) {
        pid = (await runtime.mcpServers()).find((s) => s.name === "ev")?.pid;
        expect(pid).toBeGreaterThan(0);
        process.kill(pid as number, "SIGKILL");
      }
    }
    const result = await handle.result;
    expect(result.status).toBe("done");
    const ends = new Map(toolEnds(events).map((e) => [e.call_id, e]));
    expect(ends.get("k")?.is_error).toBe(true);
    expect(ends.get("k")?.output).toMatch(/MCP server "ev" .*closed the connection.*started again on the next call/s);
    expect(ends.get("after")).toMatchObject({ is_error: false, output: "Echo: back" });
    const status = (await runtime.mcpServers())[0];
    expect(status?.state.status).toBe("ready");
    expect(status?.pid).not.toBe(pid);
  });

  it("cancelling the run cancels the in-flight MCP call at once", async () => {
    const { runtime } = await harness({
      model: scriptedModel([[toolCall("mcp__ev__trigger-long-running-operation", { duration: 60, steps: 60 }, { id: "c" })]]),
      config: mcpConfig({ ev: everythingStdio() }),
    });
    const handle = runtime.runs.run({ prompt: "go" });
    const { events, abortedAt } = await abortAtFirstProgress(handle);
    const result = await handle.result;
    expect(result.status).toBe("aborted");
    // The operation had ~59 s to go; a cancelled request ends long before that.
    expect(Date.now() - abortedAt).toBeLessThan(20_000);
    expect(toolEnds(events)[0]).toMatchObject({ call_id: "c", is_error: true });
  });

  it("a server that fails to start does not stop the run, and its state says why", async () => {
    const model = scriptedModel([[text("fine without it")]]);
    const { runtime } = await harness({
      model,
      config: mcpConfig({
        broken: { command: process.execPath, args: [join(tempDir(), "missing.js")], timeoutMs: 10_000, enabled: true },
      }),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    const [status] = await runtime.mcpServers();
    expect(status?.state.status).toBe("failed");
    expect(status?.state.status === "failed" && status.state.error).toMatch(
      /MCP server "broken" \(.*missing\.js\) did not start; its stderr: .*Cannot find module/s,
    );
  });
});

describe("MCP tool list cache", () => {
  it("is refreshed when the server says its tools changed, within the TTL", async () => {
    const model = scriptedModel([
      [toolCall("mcp__chg__add_tool", { name: "extra" }, { id: "a" })],
      [text("added")],
      [toolCall("mcp__chg__extra", {}, { id: "x" })],
      [text("ran")],
    ]);
    const server = { command: process.execPath, args: [CHANGING_SERVER], timeoutMs: 30_000, enabled: true };
    const { runtime } = await harness({ model, config: mcpConfig({ chg: server }, 3600) });
    const first = await collect(runtime.runs.run({ prompt: "add a tool" }));
    expect(first.result.status).toBe("done");
    expect(model.calls[0]?.options.tools?.map((t) => t.name)).not.toContain("mcp__chg__extra");
    const second = await collect(runtime.runs.run({ prompt: "use it", sessionId: first.result.sessionId }));
    expect(second.result.status).toBe("done");
    expect(model.calls[2]?.options.tools?.map((t) => t.name)).toContain("mcp__chg__extra");
    expect(toolEnds(second.events)[0]).toMatchObject({ is_error: false, output: "extra ran" });
  });
});

describe("a server that hangs at start", () => {
  it("costs the first run its timeoutMs, and the runs soon after it nothing", async () => {
    const hanging = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], timeoutMs: 3000, enabled: true };
    const model = scriptedModel([[text("one")], [text("two")]]);
    const { runtime } = await harness({ model, config: mcpConfig({ stuck: hanging }) });
    let started = Date.now();
    expect((await collect(runtime.runs.run({ prompt: "one" }))).result.status).toBe("done");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    started = Date.now();
    expect((await collect(runtime.runs.run({ prompt: "two" }))).result.status).toBe("done");
    // Well under the 3 s a second start would take.
    expect(Date.now() - started).toBeLessThan(2000);
    const [status] = await runtime.mcpServers();
    expect(status?.state.status === "failed" && status.state.error).toMatch(
      /MCP server "stuck" .*did not start.*3000 ms|timed out/is,
    );
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { McpServerConfig } from "../../src/config/schema.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { collect, harness } from "../loop/harness.js";
import { abortAtFirstProgress, EVERYTHING_BIN } from "./servers.js";

let child: ChildProcess | undefined;
let url = "";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** server-everything in its Streamable HTTP mode, ready once it says it listens. */
beforeAll(async () => {
  const port = await freePort();
  child = spawn(process.execPath, [EVERYTHING_BIN, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child?.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port")) resolve();
    });
    child?.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 60_000);
afterAll(() => {
  child?.kill();
});

function httpConfig(overrides: Partial<McpServerConfig> = {}) {
  const server = { url, timeoutMs: 30_000, enabled: true, ...overrides };
  return resolveConfig([{ source: "test", value: { mcp: { servers: { remote: server } } } }]);
}

const toolEnds = (events: readonly RunEvent[]) => events.flatMap((e) => (e.type === "tool_end" ? [e] : []));

describe("MCP tools over Streamable HTTP", () => {
  it("lists, calls, reports progress and answers a repeated read-only call from the cache", async () => {
    const model = scriptedModel([
      [
        toolCall("mcp__remote__echo", { message: "over http" }, { id: "e1" }),
        toolCall("mcp__remote__trigger-long-running-operation", { duration: 1.5, steps: 3 }, { id: "p" }),
      ],
      [toolCall("mcp__remote__echo", { message: "over http" }, { id: "e2" })],
      [text("done")],
    ]);
    const { runtime } = await harness({ model, config: httpConfig() });
    const { events, result } = await collect(runtime.runs.run({ prompt: "go" }));
    expect(result.status).toBe("done");
    const ends = new Map(toolEnds(events).map((e) => [e.call_id, e]));
    expect(ends.get("e1")).toMatchObject({ is_error: false, cached: false, output: "Echo: over http" });
    expect(ends.get("e2")).toMatchObject({ is_error: false, cached: true, output: "Echo: over http" });
    expect(ends.get("p")?.output).toMatch(/Long running operation completed/);
    const progress = events.filter((e) => e.type === "tool_progress" && e.call_id === "p");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const [status] = await runtime.mcpServers();
    expect(status).toMatchObject({ name: "remote", transport: "http", state: { status: "ready" } });
    expect(status?.tools.map((t) => t.name)).toContain("mcp__remote__get-tiny-image");
  });

  it("cancelling the run cancels the in-flight HTTP request", async () => {
    const { runtime } = await harness({
      model: scriptedModel([[toolCall("mcp__remote__trigger-long-running-operation", { duration: 60, steps: 60 }, { id: "c" })]]),
      config: httpConfig(),
    });
    const handle = runtime.runs.run({ prompt: "go" });
    const { events, abortedAt } = await abortAtFirstProgress(handle);
    expect((await handle.result).status).toBe("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(20_000);
    expect(toolEnds(events)[0]).toMatchObject({ call_id: "c", is_error: true });
  });

  it("an unreachable URL is a failed server that does not stop the run", async () => {
    const port = await freePort();
    const model = scriptedModel([[text("fine")]]);
    const { runtime } = await harness({ model, config: httpConfig({ url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 5000 }) });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    const [status] = await runtime.mcpServers();
    expect(status?.state.status === "failed" && status.state.error).toMatch(
      /MCP server "remote" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) did not start/,
    );
  });
});

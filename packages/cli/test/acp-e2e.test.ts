import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { FakeEditor } from "../../server/test/helpers/fake-editor.js";
import { ARBOR_BIN } from "./helpers/cli.js";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";

const e2e = setupCliE2e("arbor-acp-e2e-", { files: { ".env": "KEY=1\n", "notes.txt": "42\n" } });

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once("close", resolve));
    child.stdin.end();
    await exited;
  }
});

/** `arbor acp` as an editor starts it: a child process speaking ACP on its stdin and stdout. */
function startAcp(baseURL: string, home = e2e.home): ChildProcessWithoutNullStreams {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ARBOR_")) env[k] = v;
  const child = spawn(
    process.execPath,
    [ARBOR_BIN, "acp", "--model", FAKE_MODEL, "--base-url", baseURL, "--cwd", e2e.workspace],
    { env: { ...env, ARBOR_HOME: home }, stdio: ["pipe", "pipe", "pipe"] },
  );
  children.push(child);
  return child;
}

describe("arbor acp (a child process, the SDK's client over stdio)", () => {
  // Two processes start one after the other; on a loaded machine each takes seconds.
  it("prompts with a permission round trip, loads the session in a new process and forks it", { timeout: 120_000 }, async () => {
    const server = await e2e.startFake({
      script: [
        [text("Checking."), toolCall("read", { path: ".env" }, { id: "p1" })],
        [text("The key is set.")],
        [text("Forked.")],
      ],
    });
    const updates: acp.SessionNotification[] = [];
    const asked: acp.RequestPermissionRequest[] = [];
    const app = acp
      .client({ name: "test" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params);
      })
      .onRequest("session/request_permission", ({ params }) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId: "once" } };
      });
    const over = (child: ChildProcessWithoutNullStreams) =>
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      );

    const first = startAcp(server.baseURL);
    const sessionId = await app.connectWith(over(first), async (agent) => {
      const init = await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentInfo?.name).toBe("arbor");
      const { sessionId } = await agent.request("session/new", { cwd: e2e.workspace, mcpServers: [] });
      const response = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "is the key set?" }] });
      expect(response.stopReason).toBe("end_turn");
      return sessionId;
    });
    expect(asked.map((a) => [a.toolCall.toolCallId, a.toolCall.kind])).toEqual([["p1", "read"]]);
    const said = updates.flatMap((n) =>
      n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? [n.update.content.text] : [],
    );
    expect(said.join("")).toBe("Checking.The key is set.");
    expect(updates.map((n) => n.update)).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "p1", status: "completed" }),
    );

    updates.length = 0;
    const second = startAcp(server.baseURL);
    await app.connectWith(over(second), async (agent) => {
      await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      await agent.request("session/load", { sessionId, cwd: e2e.workspace, mcpServers: [] });
      expect(updates.map((n) => n.update.sessionUpdate)).toEqual([
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
      ]);
      const forked = await agent.request<{ sessionId: string }>("_arbor/fork", { sessionId });
      expect(forked.sessionId).not.toBe(sessionId);
      const response = await agent.request("session/prompt", {
        sessionId: forked.sessionId,
        prompt: [{ type: "text", text: "and now?" }],
      });
      expect(response.stopReason).toBe("end_turn");
      const listed = await agent.request("session/list", {});
      expect(listed.sessions.map((s) => s.sessionId).sort()).toEqual([sessionId, forked.sessionId].sort());
    });
  });

  it("an editor offering fs and terminal gets the reads, writes and commands over stdio", { timeout: 120_000 }, async () => {
    const server = await e2e.startFake({
      script: [
        [toolCall("read", { path: "buffer.md" }, { id: "r1" })],
        [toolCall("write", { path: "made.txt", content: "made\n" }, { id: "w1" })],
        [toolCall("bash", { command: "touch ran-here" }, { id: "b1" })],
        [text("Done.")],
      ],
    });
    // A sandbox would keep the command here (an editor's terminal cannot be confined): off, it goes to the editor.
    const config = join(e2e.workspace, "arbor.json");
    writeFileSync(config, JSON.stringify({ sandbox: { mode: "off" } }));
    try {
      const editor = new FakeEditor();
      editor.buffers.set(join(e2e.workspace, "buffer.md"), "only in the editor\n");
      editor.output = () => "terminal says hi\n";
      const updates: acp.SessionNotification[] = [];
      const app = editor.serve(
        acp.client({ name: "test" }).onNotification("session/update", ({ params }) => {
          updates.push(params);
        }),
      );
      const child = startAcp(server.baseURL);
      const stream = acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      );
      await app.connectWith(stream, async (agent) => {
        await agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: editor.capabilities });
        const { sessionId } = await agent.request("session/new", { cwd: e2e.workspace, mcpServers: [] });
        const response = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
        expect(response.stopReason).toBe("end_turn");
      });
      const results = JSON.stringify(server.requests.map((r) => r.body));
      expect(results).toContain("only in the editor");
      expect(results).toContain("terminal says hi");
      expect(editor.writes).toEqual([{ path: join(e2e.workspace, "made.txt"), content: "made\n" }]);
      expect(existsSync(join(e2e.workspace, "made.txt"))).toBe(false);
      expect(existsSync(join(e2e.workspace, "ran-here"))).toBe(false);
      expect(editor.terminals.map((t) => t.released)).toEqual([true]);
      expect(updates.map((n) => n.update)).toContainEqual(
        expect.objectContaining({ toolCallId: "b1", content: [{ type: "terminal", terminalId: "term-1" }] }),
      );
    } finally {
      rmSync(config);
    }
  });

  it("bad input on the wire is a JSON-RPC error naming the problem, and nothing is written", { timeout: 120_000 }, async () => {
    const home = e2e.freshDir("home");
    const child = startAcp("http://127.0.0.1:9", home);
    const lines = createInterface({ input: child.stdout });
    const replies: Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }> = [];
    const waiting: Array<() => void> = [];
    lines.on("line", (line) => {
      replies.push(JSON.parse(line));
      waiting.shift()?.();
    });
    const send = async (message: string) => {
      const replied = new Promise<void>((resolve) => waiting.push(resolve));
      child.stdin.write(`${message}\n`);
      await replied;
      return replies.at(-1);
    };
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} },
    });
    expect((await send(init))?.result).toMatchObject({ protocolVersion: acp.PROTOCOL_VERSION });
    expect((await send("this is not json"))?.error?.code).toBe(-32700);
    const unknownSession = await send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "session/prompt",
        params: { sessionId: "nope", prompt: [{ type: "text", text: "hi" }] },
      }),
    );
    expect(unknownSession?.error?.code).toBe(-32002);
    const badParams = await send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: 3 } }));
    expect(badParams?.error?.code).toBe(-32602);
    const unknownMethod = await send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/nope", params: {} }));
    expect(unknownMethod?.error?.code).toBe(-32601);
    child.stdin.end();
    await new Promise((resolve) => child.once("close", resolve));
    const list = await e2e.arbor(["sessions", "list", "--json"], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ sessions: [] });
  });
});

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { type Script, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { connectedSession } from "./helpers/acp-client.js";
import { FakeEditor } from "./helpers/fake-editor.js";
import { startServer } from "./helpers/server.js";

/** A server whose scripted model the test can read back (what each call was shown). */
async function serverWith(script: Script) {
  const model = scriptedModel(script);
  const server = await startServer({ runtime: { model } });
  return { server, model };
}

/** What the model was shown in its call `index` (tool results included), as text. */
const shown = (model: ReturnType<typeof scriptedModel>, index: number) => JSON.stringify(model.calls[index]?.prompt);

const toolUpdates = (updates: acp.SessionNotification[], toolCallId: string) =>
  updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === toolCallId);

describe("ACP: the client's fs/* and terminal/* serve Arbor's tools when it offers them", () => {
  it("read, write and edit go through the editor's buffers; the disk is untouched", async () => {
    const { server, model } = await serverWith([
      [toolCall("read", { path: "draft.md" }, { id: "r1" })],
      [toolCall("write", { path: "out/new.txt", content: "from the model\n" }, { id: "w1" })],
      [toolCall("edit", { path: "draft.md", oldString: "unsaved", newString: "edited" }, { id: "e1" })],
      [text("Done.")],
    ]);
    // The buffer is newer than the disk: the model must see the buffer.
    writeFileSync(join(server.cwd, "draft.md"), "disk copy\n");
    const editor = new FakeEditor();
    editor.buffers.set(join(server.cwd, "draft.md"), "unsaved text\n");
    const { client, sessionId } = await connectedSession(server, () => "once", undefined, editor);
    expect((await client.prompt(sessionId, "work on the draft")).stopReason).toBe("end_turn");

    expect(shown(model, 1)).toContain("unsaved text");
    expect(shown(model, 1)).not.toContain("disk copy");
    expect(editor.writes).toEqual([
      { path: join(server.cwd, "out", "new.txt"), content: "from the model\n" },
      { path: join(server.cwd, "draft.md"), content: "edited text\n" },
    ]);
    expect(editor.reads).toEqual([join(server.cwd, "draft.md"), join(server.cwd, "draft.md")]);
    // The editor decides when its buffers reach the disk: Arbor wrote nothing there itself.
    expect(existsSync(join(server.cwd, "out"))).toBe(false);
    expect(readFileSync(join(server.cwd, "draft.md"), "utf8")).toBe("disk copy\n");
    expect(toolUpdates(client.updates, "e1")).toEqual([
      expect.objectContaining({
        status: "completed",
        content: expect.arrayContaining([
          { type: "diff", path: join(server.cwd, "draft.md"), oldText: "unsaved", newText: "edited" },
        ]),
      }),
    ]);
  });

  it("permissions still decide: a rejected read never reaches the editor; a missing buffer is the tool's error", async () => {
    const { server, model } = await serverWith([
      [toolCall("read", { path: "gone.txt" }, { id: "g1" })],
      [toolCall("read", { path: ".env" }, { id: "p1" })],
      [text("Could not.")],
    ]);
    const editor = new FakeEditor();
    editor.buffers.set(join(server.cwd, ".env"), "KEY=1\n");
    const { client, sessionId } = await connectedSession(server, () => "reject", undefined, editor);
    expect((await client.prompt(sessionId, "look")).stopReason).toBe("end_turn");
    expect(client.asked).toHaveLength(1);
    expect(editor.reads).toEqual([join(server.cwd, "gone.txt")]);
    expect(toolUpdates(client.updates, "g1")).toEqual([expect.objectContaining({ status: "failed" })]);
    expect(toolUpdates(client.updates, "p1")).toEqual([expect.objectContaining({ status: "failed" })]);
    expect(shown(model, 1)).toContain("The editor could not read gone.txt");
    expect(JSON.stringify(client.updates)).not.toContain("KEY=1");
  });

  it("bash runs in the editor's terminal: the call embeds it, the model gets its output, nothing runs here", async () => {
    const { server, model } = await serverWith([
      [toolCall("bash", { command: "touch ran-here && make test" }, { id: "b1" })],
      [text("Tests ran.")],
    ]);
    const editor = new FakeEditor();
    editor.output = () => "12 tests passed\n";
    editor.exitCode = 3;
    const { client, sessionId } = await connectedSession(server, () => "once", undefined, editor);
    expect((await client.prompt(sessionId, "run the tests")).stopReason).toBe("end_turn");

    expect(editor.terminals).toHaveLength(1);
    const terminal = editor.terminals[0]!;
    expect(terminal.request).toMatchObject({
      sessionId,
      command: "bash",
      args: ["-c", "touch ran-here && make test"],
      cwd: server.cwd,
    });
    expect(terminal.request.env).toEqual([{ name: "ARBOR_IDEMPOTENCY_KEY", value: expect.any(String) }]);
    expect(terminal.released).toBe(true);
    expect(terminal.killed).toBe(false);
    expect(existsSync(join(server.cwd, "ran-here"))).toBe(false);
    expect(shown(model, 1)).toContain("12 tests passed");
    expect(shown(model, 1)).toContain("[exit code: 3]");
    const updates = toolUpdates(client.updates, "b1");
    expect(updates[0]).toMatchObject({ content: [{ type: "terminal", terminalId: terminal.id }] });
    expect(updates.at(-1)).toMatchObject({
      status: "completed",
      content: [{ type: "terminal", terminalId: terminal.id }, expect.objectContaining({ type: "content" })],
    });
  });

  it("a command past its timeout is killed in the editor's terminal and released", async () => {
    const { server, model } = await serverWith([
      [toolCall("bash", { command: "npm run serve", timeout: 50 }, { id: "b1" })],
      [text("It kept running.")],
    ]);
    const editor = new FakeEditor();
    editor.hangs = () => true;
    editor.output = () => "listening on 3000\n";
    const { client, sessionId } = await connectedSession(server, () => "once", undefined, editor);
    expect((await client.prompt(sessionId, "serve it")).stopReason).toBe("end_turn");
    expect(editor.terminals.map((t) => [t.killed, t.released])).toEqual([[true, true]]);
    expect(shown(model, 1)).toContain("listening on 3000");
    expect(shown(model, 1)).toContain("timed out after 50 ms");
  });

  it("session/cancel kills the command in the editor's terminal and releases it", async () => {
    const { server } = await serverWith([[toolCall("bash", { command: "npm run watch" }, { id: "b1" })], [text("Never said.")]]);
    const editor = new FakeEditor();
    editor.hangs = () => true;
    const { client, sessionId } = await connectedSession(server, () => "once", undefined, editor);
    const prompt = client.prompt(sessionId, "watch");
    await client.seen((n) => n.update.sessionUpdate === "tool_call_update" && JSON.stringify(n.update).includes('"terminal"'));
    await client.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(editor.terminals.map((t) => [t.killed, t.released])).toEqual([[true, true]]);
    expect(toolUpdates(client.updates, "b1").at(-1)).toMatchObject({ status: "failed" });
  });

  it("a client that offers neither keeps the tools on the disk and the local shell", async () => {
    const { server, model } = await serverWith([
      [toolCall("read", { path: "notes.txt" }, { id: "r1" })],
      [toolCall("write", { path: "out.txt", content: "on disk\n" }, { id: "w1" })],
      [toolCall("bash", { command: "echo local > ran.txt && echo done" }, { id: "b1" })],
      [text("Done.")],
    ]);
    writeFileSync(join(server.cwd, "notes.txt"), "disk notes\n");
    const editor = new FakeEditor({});
    const { client, sessionId } = await connectedSession(server, () => "once", undefined, editor);
    expect((await client.prompt(sessionId, "work locally")).stopReason).toBe("end_turn");
    expect(shown(model, 1)).toContain("disk notes");
    expect(readFileSync(join(server.cwd, "out.txt"), "utf8")).toBe("on disk\n");
    expect(readFileSync(join(server.cwd, "ran.txt"), "utf8")).toBe("local\n");
    expect(editor.reads).toEqual([]);
    expect(editor.writes).toEqual([]);
    expect(editor.terminals).toEqual([]);
  });
});

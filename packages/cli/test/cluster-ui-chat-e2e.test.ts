import { randomUUID } from "node:crypto";
import { access } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { delay, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { approveAll, readUi, user } from "../../server/test/helpers/ui-stream.js";
import { driverOf, follow, modelBody, postUiChat, startInstance, withClusterRig } from "./helpers/cluster.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { withStore } from "./helpers/seed.js";

/**
 * The useChat endpoint in a cluster: its chat goes through the queue like /api/chat, so a kill -9 of
 * the instance driving it is a takeover like any other, and the client's resumed stream
 * (`GET /api/ui/chat/:id/stream`) on another instance follows the session's log across it: every
 * run event once, up to the ask the new driver raises; the `done` after the takeover carries totals.
 */

// Every bash call asks, so a run waits where a test answers it.
const e2e = setupCliE2e("arbor-cluster-ui-chat-", {
  files: { "arbor.json": JSON.stringify({ permission: { bash: { "*": "ask" } } }) },
});

/** Reads a response's body until `marker` appears in it; the body is left open (its instance is about to die). */
async function readUntil(res: Response, marker: string): Promise<void> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${marker}: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
}

describe("useChat on arbor serve --cluster", () => {
  it("a chat posted to an instance killed mid-run is taken over; the resumed stream on another gets every event once and stops at the new driver's ask", async () => {
    await withClusterRig(e2e.workspace, async (db, rig) => {
      // The first answer hangs, so the run is mid-stream when its instance dies; the run taken over asks to run bash.
      let calls = 0;
      const step = (call: StepContext): readonly ScriptAction[] => {
        if (!modelBody(call).tools) return [text("Title")];
        calls++;
        if (calls === 1) return [text("Working "), delay(120_000), text("never")];
        if (calls === 2) return [toolCall("bash", { command: "touch ui-takeover.txt" })];
        return [text("Touched after the takeover.")];
      };
      const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
      const args = { baseURL, home: join(e2e.dir, "home"), store: db.url, takeoverMs: 3_000, cwd: e2e.workspace };
      // Alone, A takes the chat it queues: the instance that received the request drives it.
      const a = await startInstance(rig, "A", args);
      const id = randomUUID();
      const post = (url: string, messages: unknown[]) => postUiChat(url, id, messages);
      const first = await post(a.url, [user("work on it")]);
      expect(first.status).toBe(200);
      await readUntil(first, '"text-delta"');
      const b = await startInstance(rig, "B", args);
      expect(await withStore(db.url, (s) => driverOf(s, id, [a, b]))).toBe(a);

      const killedAt = Date.now();
      a.cli.child.kill("SIGKILL");
      await a.cli.result;
      a.up = false;

      // useChat's resumeStream, sent to the surviving instance.
      const resumed = await fetch(`${b.url}/api/ui/chat/${id}/stream`);
      const got = await readUi(resumed);
      expect(b.lines.some((l) => l.line.includes(`took over the run of session ${id}`))).toBe(true);
      const approval = got.chunks.filter((ch) => ch.type === "tool-approval-request");
      expect(approval).toHaveLength(1);
      expect(got.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });

      // Every run event of the run, up to the ask, exactly once: the tokens make the message's text once.
      const logged = await withStore(db.url, (s) => s.listEvents(id, { after: 0, limit: 10_000 }));
      const runEvents = logged.filter((r) => r.type.startsWith("run."));
      const ask = runEvents.find((r) => r.type === "run.permission_request");
      expect(ask).toBeDefined();
      const upToAsk = runEvents.filter((r) => r.id <= (ask?.id as number));
      const loggedText = upToAsk
        .flatMap((r) => (r.type === "run.token" ? [(r.data as { content: string }).content] : []))
        .join("");
      const streamedText = got.message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      expect(streamedText).toBe(loggedText);
      const toolStarts = upToAsk.filter((r) => r.type === "run.tool_start").map((r) => (r.data as { call_id: string }).call_id);
      const toolInputs = got.chunks.flatMap((ch) => (ch.type === "tool-input-available" ? [ch.toolCallId] : []));
      expect(toolInputs).toEqual(toolStarts);
      expect(got.message.metadata).toMatchObject({ lastEventId: ask?.id });
      // The ask is the new driver's: asked after A died.
      expect(Date.parse((ask as { timestamp: string }).timestamp)).toBeGreaterThanOrEqual(killedAt);

      // The client approves on B; the stream continues after the ask to the run's end.
      const answered = approveAll(got.message);
      const rest = await readUi(await post(b.url, [user("work on it"), answered]), answered);
      expect(rest.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
      await expect(access(join(e2e.workspace, "ui-takeover.txt"))).resolves.toBeUndefined();

      // The run stream's `done` after the takeover carries the run's status, usage, cost and text.
      const watched = await follow(id, () => b, performance.now() + 30_000);
      const done = watched.events.at(-1)?.event as Extract<RunEvent, { type: "done" }>;
      expect(done).toMatchObject({ type: "done", status: "done", text: expect.stringContaining("Touched after the takeover.") });
      expect(done.usage).toMatchObject({ input: expect.any(Number), output: expect.any(Number) });
      expect(done.cost).toEqual(expect.any(Number));
    });
  }, 120_000);
});

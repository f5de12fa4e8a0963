import { type AnyToolDefinition, defineTool, type Snapshot } from "@arbor/core";
import { reasoning, type Script, type StepContext, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MessagePageResponse, ToolCallListResponse, ToolStatsResponse } from "../src/index.js";
import { json } from "./helpers/json.js";
import { errorOf, gateTool, startServer } from "./helpers/server.js";
import { chatToDone, readSse } from "./helpers/sse.js";

type Page = z.output<typeof MessagePageResponse>;
type Prompt = Array<{ role: string; content: unknown }>;
const promptOf = (call: StepContext) => (call as { options: { prompt: Prompt } }).options.prompt;

/** A clock the tools move, so durations are exact. */
function fakeClock() {
  const clock = { t: 1_000, now: () => clock.t, sleep: async () => {} };
  return clock;
}

function tools(clock: { t: number }): AnyToolDefinition[] {
  return [
    defineTool({
      name: "slow",
      description: "Takes ms milliseconds.",
      input: z.object({ ms: z.number() }),
      execute: async ({ ms }) => {
        clock.t += ms;
        return { output: `took ${ms}`, metadata: { ms } };
      },
    }) as AnyToolDefinition,
    defineTool({
      name: "broken",
      description: "Always fails.",
      input: z.object({}),
      execute: async () => {
        clock.t += 5;
        throw new Error("disk on fire");
      },
    }) as AnyToolDefinition,
  ];
}

/** The same instant written at +02:00, nanoseconds kept. */
function withOffset(time: string): string {
  const shifted = new Date(Date.parse(`${time.slice(0, 19)}Z`) + 2 * 3_600_000);
  return `${shifted.toISOString().slice(0, 19)}${time.slice(19, -1)}+02:00`;
}

/** Two requests: one that thinks, calls slow (40 ms), slow (10 ms) and broken, then answers; one plain. */
async function twoRequests(extra: Script = []) {
  const clock = fakeClock();
  const server = await startServer({
    script: [
      [reasoning("Need the files."), text("Looking."), toolCall("slow", { ms: 40 }, { id: "c1" })],
      [toolCall("slow", { ms: 10 }, { id: "c2" })],
      [toolCall("broken", {}, { id: "c3" })],
      [text("Two files.")],
      [text("You're welcome.")],
      ...extra,
    ],
    tools: tools(clock),
    runtime: { clock },
  });
  const id = await chatToDone(server, "list files");
  await chatToDone(server, "thanks", id);
  return { server, id };
}

describe("GET /api/sessions/:id/messages", () => {
  it("groups the active path per request: Message → AgentStep → ToolCall → ToolResult, newest first", async () => {
    const { server, id } = await twoRequests();
    const page = MessagePageResponse.parse(await json(server.api(`/api/sessions/${id}/messages`)));
    expect(page.next_cursor).toBeUndefined();
    expect(page.messages.map((m) => [m.role, m.content, m.is_completed])).toEqual([
      ["assistant", "You're welcome.", true],
      ["user", "thanks", true],
      ["assistant", "Two files.", true],
      ["user", "list files", true],
    ]);
    const [, thanks, answer, question] = page.messages;
    expect(answer?.request_id).toBe(question?.id);
    expect(thanks?.request_id).toBe(thanks?.id);
    expect(question).toMatchObject({ session_id: id, agent_steps: [], knowledge_references: [] });
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(question?.id).toBe(snapshot.activePath[0]);
    expect(answer?.id).toBe(snapshot.activePath[1]);

    expect(answer?.agent_steps.map((s) => [s.iteration, s.thought, s.tool_calls.map((c) => c.id)])).toEqual([
      [0, "Need the files.\n\nLooking.", ["c1"]],
      [1, "", ["c2"]],
      [2, "", ["c3"]],
      [3, "", []],
    ]);
    const calls = answer?.agent_steps.flatMap((s) => s.tool_calls);
    expect(calls?.[0]).toEqual({
      id: "c1",
      name: "slow",
      args: { ms: 40 },
      result: { success: true, output: "took 40", data: { ms: 40 } },
      duration: 40,
    });
    expect(calls?.[2]).toMatchObject({ name: "broken", duration: 5, result: { success: false } });
    expect(calls?.[2]?.result?.error).toContain("disk on fire");
    // Timestamps are RFC 3339 with nanoseconds, increasing along the path.
    const times = page.messages.map((m) => m.created_at).reverse();
    expect(times.every((t) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/.test(t))).toBe(true);
    expect([...times].sort()).toEqual(times);
    expect((answer?.updated_at as string) > (answer?.created_at as string)).toBe(true);
  });

  it("pages by limit and before (strictly earlier), each message exactly once, with a stable cursor", async () => {
    const { server, id } = await twoRequests();
    const all = await json<Page>(server.api(`/api/sessions/${id}/messages?limit=1000`));
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const query: string = before === undefined ? "" : `&before=${encodeURIComponent(before)}`;
      const page: Page = await json<Page>(server.api(`/api/sessions/${id}/messages?limit=3${query}`));
      seen.push(...page.messages.map((m) => m.id));
      if (page.next_cursor === undefined) break;
      expect(page.next_cursor).toBe(page.messages.at(-1)?.created_at);
      before = page.next_cursor;
    }
    expect(seen).toEqual(all.messages.map((m) => m.id));
    expect(seen).toHaveLength(4);

    // The cursor is the message's own time: strictly earlier leaves it out, in any offset.
    const [oldest, second] = [all.messages[3]?.created_at as string, all.messages[2]?.created_at as string];
    for (const cursor of [oldest, withOffset(oldest)]) {
      expect(
        (await json<Page>(server.api(`/api/sessions/${id}/messages?before=${encodeURIComponent(cursor)}`))).messages,
      ).toEqual([]);
    }
    const justOne = await json<Page>(server.api(`/api/sessions/${id}/messages?before=${encodeURIComponent(withOffset(second))}`));
    expect(justOne).toEqual({ messages: [all.messages[3]] });
  });

  it("404 for a missing session (never an empty list), 400 for a bad before, limit or id", async () => {
    const { server, id } = await twoRequests();
    expect(await errorOf(await server.api("/api/sessions/nosuch/messages"))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    for (const bad of ["yesterday", "2026-02-31T00:00:00Z", "2026-01-01T00:00:00", "1"]) {
      const err = await errorOf(await server.api(`/api/sessions/${id}/messages?before=${encodeURIComponent(bad)}`));
      expect(err, bad).toMatchObject({ status: 400, code: "invalid_input" });
      expect(err.message).toContain("before");
    }
    expect(await errorOf(await server.api(`/api/sessions/${id}/messages?limit=0`))).toMatchObject({ status: 400 });
    expect(await errorOf(await server.api("/api/sessions/..%2Fx/messages"))).toMatchObject({ status: 400, code: "invalid_id" });
    // An empty session is an empty list, not a 404.
    const empty = await json<{ id: string }>(server.api("/api/sessions", { json: {} }), 201);
    expect(await json(server.api(`/api/sessions/${empty.id}/messages`))).toEqual({ messages: [] });
  });
});

describe("DELETE /api/sessions/:id/messages/:message_id", () => {
  it("deletes a message with its steps from the trace and the model's context, and erases it on every branch", async () => {
    let prompt: Prompt = [];
    const { server, id } = await twoRequests([
      (call) => {
        prompt = promptOf(call);
        return [text("After delete.")];
      },
      (call) => {
        prompt = promptOf(call);
        return [text("On the old branch.")];
      },
    ]);
    const before = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    const answer = before.messages[2];
    const leafBefore = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId as string;
    const entriesBefore = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).entries;

    expect((await server.api(`/api/sessions/${id}/messages/${answer?.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(after.messages.map((m) => m.content)).toEqual(["You're welcome.", "thanks", "list files"]);
    // The tree keeps its shape and ids; the answer's entries are tombstones.
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(snapshot.entries.slice(0, entriesBefore.length).map((e) => [e.id, e.parentId])).toEqual(
      entriesBefore.map((e) => [e.id, e.parentId]),
    );
    expect(JSON.stringify(snapshot)).not.toContain("Two files.");
    expect(JSON.stringify(snapshot)).not.toContain("took 40");
    expect(snapshot.entries.at(-1)).toMatchObject({ type: "custom", customType: "arbor.delete", parentId: leafBefore });
    // Its tool calls are gone from the stats too.
    expect(await json(server.api(`/api/sessions/${id}/tool-stats`))).toEqual({ tools: [] });

    await chatToDone(server, "again", id);
    const sent = JSON.stringify(prompt);
    expect(sent).toContain("list files");
    expect(sent).not.toContain("Two files.");
    expect(sent).not.toContain("took 40");

    // The branch before the delete lists the message as deleted, and its content reaches no model there either.
    await json(server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: leafBefore } }));
    const old = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(old.messages.map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
    expect(old.messages[2]).toMatchObject({ id: answer?.id, deleted: true, content: "" });
    await chatToDone(server, "old branch", id);
    expect(JSON.stringify(prompt)).toContain("thanks");
    expect(JSON.stringify(prompt)).not.toContain("Two files.");
  });

  it("deleting a question leaves its answer; 404 for a message not on the active path or a missing session", async () => {
    const { server, id } = await twoRequests();
    const before = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    const question = before.messages[3];
    expect((await server.api(`/api/sessions/${id}/messages/${question?.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(after.messages.map((m) => m.id)).toEqual(before.messages.slice(0, 3).map((m) => m.id));
    // Ids and cursors of what remains do not change.
    expect(after.messages).toEqual(before.messages.slice(0, 3));

    const again = await errorOf(await server.api(`/api/sessions/${id}/messages/${question?.id}`, { method: "DELETE" }));
    expect(again).toMatchObject({ status: 404, code: "message_not_found" });
    // A step's entry is not a message of its own.
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(
      await errorOf(await server.api(`/api/sessions/${id}/messages/${snapshot.activePath[2]}`, { method: "DELETE" })),
    ).toMatchObject({ status: 404, code: "message_not_found" });
    expect(await errorOf(await server.api(`/api/sessions/nosuch/messages/${question?.id}`, { method: "DELETE" }))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    expect(await errorOf(await server.api(`/api/sessions/${id}/messages/..%2Fx`, { method: "DELETE" }))).toMatchObject({
      status: 400,
      code: "invalid_id",
    });
  });

  it("waits for an idle session: 409 while a run is in progress", async () => {
    const gate = gateTool();
    const server = await startServer({ script: [[text("one")], [toolCall("gate", {})], [text("done")]], tools: [gate.tool] });
    const id = await chatToDone(server, "first");
    const [question] = (await json<Page>(server.api(`/api/sessions/${id}/messages`))).messages.slice(-1);
    const statuses: number[] = [];
    const events = await readSse(await server.api("/api/chat", { json: { message: "hold", session_id: id } }), (m) => {
      if (m.event.type === "tool_start") {
        void (async () => {
          statuses.push((await server.api(`/api/sessions/${id}/messages/${question?.id}`, { method: "DELETE" })).status);
          statuses.push((await server.api(`/api/sessions/${id}/compact`, { json: {} })).status);
          gate.release();
        })();
      }
      return undefined;
    });
    expect(events.at(-1)?.event.type).toBe("done");
    expect(statuses).toEqual([409, 409]);
  });
});

describe("tool stats and tool call search", () => {
  it("a bash command that exits non-zero is a failed call, with the model's reflection on it", async () => {
    const server = await startServer({
      script: [[toolCall("bash", { command: "echo building; exit 3" })], [text("The build failed with exit code 3.")]],
      runtime: { permission: [{ permission: "bash", pattern: "*", action: "allow" }] },
    });
    const id = await chatToDone(server, "build it");
    const failed = ToolCallListResponse.parse(await json(server.api(`/api/sessions/${id}/tool-calls?failed=true`)));
    expect(failed.tool_calls.map((f) => f.tool_call.name)).toEqual(["bash"]);
    expect(failed.tool_calls[0]?.tool_call.result).toMatchObject({ success: false, error: "The command exited with code 3." });
    expect(failed.tool_calls[0]?.tool_call.reflection).toBe("The build failed with exit code 3.");
  });

  it("per-tool count, failures and p50/p95/max durations; failed calls by tool", async () => {
    const { server, id } = await twoRequests();
    const stats = ToolStatsResponse.parse(await json(server.api(`/api/sessions/${id}/tool-stats`)));
    expect(stats.tools).toEqual([
      { name: "broken", count: 1, failures: 1, p50_ms: 5, p95_ms: 5, max_ms: 5, total_ms: 5 },
      { name: "slow", count: 2, failures: 0, p50_ms: 10, p95_ms: 40, max_ms: 40, total_ms: 50 },
    ]);

    const failed = ToolCallListResponse.parse(await json(server.api(`/api/sessions/${id}/tool-calls?failed=true`)));
    expect(failed.tool_calls.map((f) => [f.iteration, f.tool_call.id, f.tool_call.name])).toEqual([[2, "c3", "broken"]]);
    const page = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(failed.tool_calls[0]).toMatchObject({ message_id: page.messages[2]?.id, request_id: page.messages[3]?.id });
    const slow = await json<z.output<typeof ToolCallListResponse>>(server.api(`/api/sessions/${id}/tool-calls?tool=slow`));
    expect(slow.tool_calls.map((f) => f.tool_call.id)).toEqual(["c1", "c2"]);
    const ok = await json<z.output<typeof ToolCallListResponse>>(
      server.api(`/api/sessions/${id}/tool-calls?failed=false&tool=broken`),
    );
    expect(ok.tool_calls).toEqual([]);

    expect(await errorOf(await server.api(`/api/sessions/${id}/tool-calls?failed=yes`))).toMatchObject({ status: 400 });
    for (const route of ["tool-stats", "tool-calls"]) {
      expect(await errorOf(await server.api(`/api/sessions/nosuch/${route}`))).toMatchObject({
        status: 404,
        code: "session_not_found",
      });
    }
  });
});

import type { SessionMeta, Snapshot } from "@arbor/core";
import { error, type StepContext, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { CompactResponse } from "../src/index.js";
import { json } from "./helpers/json.js";
import { errorOf, startServer } from "./helpers/server.js";
import { chatToDone, readSse } from "./helpers/sse.js";

type Prompt = Array<{ role: string; content: unknown }>;
const promptText = (call: StepContext) => JSON.stringify((call as { options: { prompt: Prompt } }).options.prompt);

/** A script step answering `answer` that keeps the prompt it was asked with in `seen`. */
const recordInto = (seen: string[]) => (answer: string) => (call: StepContext) => {
  seen.push(promptText(call));
  return [text(answer)];
};

/**
 * A session that said "start", then "try approach A"; the model answers `answers` in turn, then
 * `summary` to the summary request, whose prompt `seen` keeps.
 */
async function afterApproachA(answers: string[], summary: string) {
  const seen: string[] = [];
  const server = await startServer({ script: [...answers.map((answer) => [text(answer)]), recordInto(seen)(summary)] });
  const id = await chatToDone(server, "start");
  await chatToDone(server, "try approach A", id);
  return { server, id, seen };
}

describe("POST /api/sessions/:id/compact", () => {
  it("summarizes with the focus through runtime.compact; the next run sees the summary", async () => {
    const seen: string[] = [];
    const record = recordInto(seen);
    const server = await startServer({
      script: [[text("First answer.")], [text("Second answer.")], record("## Goal\nThe summary body."), record("Continued.")],
    });
    const id = await chatToDone(server, "first question");
    await chatToDone(server, "second question", id);

    const result = CompactResponse.parse(
      await json(server.api(`/api/sessions/${id}/compact`, { json: { focus: "the API names" } })),
    );
    expect(result).toMatchObject({ session_id: id, summarized: expect.any(Number), split_turn: expect.any(Boolean) });
    expect(result.summarized + result.kept).toBe(4);
    expect(Object.keys(result.usage)).toEqual(["input", "output", "reasoning", "cache_read", "cache_write"]);
    // The scripted model has no price: the cost is unknown (null), never a made-up 0.
    expect(result.cost).toBeNull();
    expect(seen[0]).toContain("the API names");
    expect(seen[0]).toContain("first question");

    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(snapshot.session.leafEntryId).toBe(result.entry_id);
    expect(snapshot.entries.at(-1)).toMatchObject({ type: "compaction", id: result.entry_id });

    await chatToDone(server, "third question", id);
    expect(seen[1]).toContain("The summary body.");
  });

  it("maps failures: 409 nothing to summarize, 404 missing session, 400 bad body, 502 model failure", async () => {
    const server = await startServer({ script: [[text("Answer.")], [error(400, { message: "bad request" })]] });
    const empty = await json<SessionMeta>(server.api("/api/sessions", { json: {} }), 201);
    expect(await errorOf(await server.api(`/api/sessions/${empty.id}/compact`, { method: "POST" }))).toMatchObject({
      status: 409,
      code: "context_overflow",
    });
    expect(await errorOf(await server.api("/api/sessions/nosuch/compact", { json: {} }))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    const id = await chatToDone(server, "question");
    expect(await errorOf(await server.api(`/api/sessions/${id}/compact`, { json: { focus: 3 } }))).toMatchObject({ status: 400 });
    expect(await errorOf(await server.api(`/api/sessions/${id}/compact`, { json: { model: "x/y" } }))).toMatchObject({
      status: 400,
    });
    const failed = await errorOf(await server.api(`/api/sessions/${id}/compact`, { json: {} }));
    expect(failed).toMatchObject({ status: 502, code: "compaction_failed" });
    // Nothing was written.
    expect((await json<Snapshot>(server.api(`/api/sessions/${id}`))).entries).toHaveLength(2);
  });
});

describe("POST /api/sessions/:id/leaf with summarize", () => {
  it("records a branch summary of the branch left under the new leaf", async () => {
    const { server, id, seen } = await afterApproachA(
      ["Ready.", "Approach A failed: the parser rejects tabs."],
      "## Outcome\nA failed on tabs.",
    );
    const before = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    const [, ready] = before.activePath;

    const moved = await json<SessionMeta>(
      server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: ready, summarize: true, focus: "why A failed" } }),
    );
    const after = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    const summary = after.entries.at(-1);
    expect(summary).toMatchObject({ type: "branch_summary", parentId: ready, fromId: before.session.leafEntryId });
    expect(moved.leafEntryId).toBe(summary?.id);
    const [summaryRequest] = seen;
    expect(summaryRequest).toContain("try approach A");
    expect(summaryRequest).toContain("why A failed");

    // Without summarize the leaf just moves, as before.
    const plain = await json<SessionMeta>(server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: ready } }));
    expect(plain.leafEntryId).toBe(ready);
  });

  it("refuses focus without summarize, and a missing entry, writing nothing", async () => {
    const server = await startServer({ script: [[text("Ready.")]] });
    const id = await chatToDone(server, "start");
    const [first] = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).activePath;
    const bad = await errorOf(await server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: first, focus: "x" } }));
    expect(bad).toMatchObject({ status: 400, code: "invalid_input" });
    expect(bad.message).toContain("summarize");
    expect(
      await errorOf(await server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: "nosuchentry", summarize: true } })),
    ).toMatchObject({ status: 404, code: "entry_not_found" });
    expect((await json<Snapshot>(server.api(`/api/sessions/${id}`))).entries).toHaveLength(2);
  });
});

describe("POST /api/sessions/:id/leaf with from_entry_id (bring back)", () => {
  it("summarizes the named branch, not the active one, into the target, whichever branch is active", async () => {
    const { server, id, seen } = await afterApproachA(
      ["Ready.", "Approach A works: use a streaming parser.", "Approach B is slow."],
      "A concluded: use a streaming parser.",
    );
    const a = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId as string;
    const [, ready] = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).activePath;
    // Branch B from "Ready."; it is the active branch when A is brought back into it.
    const b = await readSse(
      await server.api("/api/chat", { json: { message: "try approach B", session_id: id, from_entry_id: ready } }),
    );
    expect(b.at(-1)?.event.type).toBe("done");
    const bLeaf = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId as string;

    const moved = await json<SessionMeta>(
      server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: bLeaf, summarize: true, from_entry_id: a } }),
    );
    const after = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    const summary = after.entries.at(-1);
    expect(summary).toMatchObject({ type: "branch_summary", parentId: bLeaf, fromId: a });
    expect(moved.leafEntryId).toBe(summary?.id);
    const [summaryRequest] = seen;
    expect(summaryRequest).toContain("try approach A");
    expect(summaryRequest).not.toContain("try approach B");

    const bad = await errorOf(await server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: bLeaf, from_entry_id: a } }));
    expect(bad).toMatchObject({ status: 400, code: "invalid_input" });
    expect(
      await errorOf(
        await server.api(`/api/sessions/${id}/leaf`, {
          json: { entry_id: bLeaf, summarize: true, from_entry_id: "nosuchentry" },
        }),
      ),
    ).toMatchObject({ status: 404, code: "entry_not_found" });
    expect((await json<Snapshot>(server.api(`/api/sessions/${id}`))).entries).toHaveLength(after.entries.length);
  });
});

describe("the event log goes with its session", () => {
  it("DELETE /api/sessions/:id deletes the session's watch events", async () => {
    const server = await startServer({ script: [[text("Hi.")]] });
    const id = await chatToDone(server, "hello");
    expect((await server.store.listEvents(id)).map((e) => e.type)).toContain("message_added");
    expect((await server.api(`/api/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    await expect(server.store.listEvents(id)).rejects.toMatchObject({ code: "session_not_found" });
  });
});

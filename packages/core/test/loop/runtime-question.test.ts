import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { firstOf, harness, tempDir, transcript } from "./harness.js";
import { askThenKill } from "./killed-asker.js";

/**
 * The `question` tool: the run waits on a durable ask of kind `question` like a permission ask,
 * answered by id from any runtime over the store, and the answer is the tool's result.
 */

const DB_QUESTION = {
  question: "Which database?",
  header: "Database",
  options: [{ label: "PostgreSQL", description: "a server" }, { label: "SQLite" }],
};

/** The text of the tool results the model was sent in its call `index`. */
function toolResultsSent(model: ReturnType<typeof scriptedModel>, index: number): string {
  return JSON.stringify(model.calls[index]?.prompt.filter((m) => m.role === "tool"));
}

describe("the question tool", () => {
  it("asks with options, is listed as a pending ask, and the answer given by id reaches the model", async () => {
    const model = scriptedModel([[toolCall("question", DB_QUESTION, { id: "q1" })], [text("Using PostgreSQL.")]]);
    const h = await harness({ model, askPollMs: 25 });
    const handle = h.runtime.runs.run({ prompt: "set up the database" });
    const { event, rest } = await firstOf(handle, "question_request");
    expect(event).toMatchObject({
      question: "Which database?",
      header: "Database",
      multiple: false,
      custom: true,
      call_id: "q1",
    });
    expect(event.options?.map((o) => o.label)).toEqual(["PostgreSQL", "SQLite"]);

    const pending = await h.runtime.asks.listPending(handle.sessionId);
    expect(pending).toEqual([expect.objectContaining({ kind: "question", id: event.id })]);
    expect((await h.runtime.asks.listQuestions()).map((q) => q.id)).toEqual([event.id]);
    // An answer the question does not take changes nothing.
    await expect(h.runtime.asks.answer(event.id, true, { answers: ["PostgreSQL", "SQLite"] })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(h.runtime.asks.answer(event.id, true)).rejects.toMatchObject({ code: "invalid_input" });
    expect((await h.store.getAsk(event.id))?.answer).toBeUndefined();

    // Chosen without regard to case: recorded as the option is written.
    const answered = await h.runtime.asks.answer(event.id, true, { answers: ["postgresql"] });
    expect(answered.kind).toBe("question");
    await expect(h.runtime.asks.answerQuestion(event.id, { answers: ["SQLite"] })).rejects.toMatchObject({
      code: "ask_already_answered",
    });
    const events = await rest;
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ tool: "question", is_error: false });
    expect((await handle.result).status).toBe("done");
    expect(toolResultsSent(model, 1)).toContain('The user answered the question \\"Which database?\\": \\"PostgreSQL\\"');
    expect((await h.store.getAsk(event.id))?.answer?.value).toEqual({ answers: ["PostgreSQL"] });
    expect(await h.runtime.asks.listPending()).toEqual([]);
  });

  it("takes a free-text answer, and several options when multiple; refuses what is not an option when custom is false", async () => {
    const multi = { question: "Which targets?", options: [{ label: "linux" }, { label: "mac" }], multiple: true, custom: false };
    const model = scriptedModel([
      [toolCall("question", { question: "What should the app be called?" }, { id: "q1" })],
      [toolCall("question", multi, { id: "q2" })],
      [text("ok")],
    ]);
    const h = await harness({ model, askPollMs: 25 });
    const handle = h.runtime.runs.run({ prompt: "start a project" });
    const asked: string[] = [];
    // Each question is answered as its event arrives; the run waits on it meanwhile.
    for await (const e of handle) {
      if (e.type !== "question_request") continue;
      asked.push(e.call_id ?? "");
      if (e.call_id === "q1") {
        expect(e).toMatchObject({ custom: true, multiple: false });
        expect(e.options).toBeUndefined();
        await h.runtime.asks.answerQuestion(e.id, { answers: ["Quill"] });
      } else {
        expect(e).toMatchObject({ custom: false, multiple: true });
        await expect(h.runtime.asks.answerQuestion(e.id, { answers: ["windows"] })).rejects.toMatchObject({
          code: "invalid_input",
        });
        await h.runtime.asks.answerQuestion(e.id, { answers: ["linux", "MAC"] });
      }
    }
    expect(asked).toEqual(["q1", "q2"]);
    expect((await handle.result).status).toBe("done");
    expect(toolResultsSent(model, 1)).toContain('\\"Quill\\"');
    expect(toolResultsSent(model, 2)).toContain('\\"linux\\", \\"mac\\"');
  });

  it("a dismissed question reaches the model as the user's refusal and ends the run", async () => {
    const model = scriptedModel([[toolCall("question", DB_QUESTION, { id: "q1" })], [text("unreached")]]);
    const h = await harness({ model, askPollMs: 25 });
    const handle = h.runtime.runs.run({ prompt: "set up the database" });
    const { event, rest } = await firstOf(handle, "question_request");
    await h.runtime.asks.answer(event.id, false, { message: "decide yourself" });
    const events = await rest;
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ is_error: true });
    expect(JSON.stringify(end)).toContain("decide yourself");
    const result = await handle.result;
    expect(result).toMatchObject({ status: "done", stopReason: "permission_rejected" });
    expect(model.calls).toHaveLength(1);
  });

  it("a handler at hand (a terminal) answers the question", async () => {
    const model = scriptedModel([[toolCall("question", DB_QUESTION, { id: "q1" })], [text("done")]]);
    const seen: string[] = [];
    const h = await harness({
      model,
      onQuestion: (q) => {
        seen.push(q.question);
        return { answers: ["SQLite"] };
      },
    });
    const result = await h.runtime.runs.run({ prompt: "set up the database" }).result;
    expect(result.status).toBe("done");
    expect(seen).toEqual(["Which database?"]);
    expect(toolResultsSent(model, 1)).toContain('\\"SQLite\\"');
  });

  it("a run killed (kill -9) while its question waited takes the answer given meanwhile when resumed", async () => {
    const dir = join(tempDir(), "store");
    const cwd = tempDir();
    const home = tempDir();
    const [sessionId, askId] = (await askThenKill("question-and-wait.mjs", [dir, cwd, home])) as [string, string];

    // Answered from another runtime while no process runs the session.
    const other = await harness({ store: await openStore(dir), cwd, arborHome: home, model: scriptedModel([]) });
    await other.runtime.asks.answer(askId, true, { answers: ["SQLite"] });
    const model = scriptedModel([[text("Using SQLite.")]]);
    const b = await harness({ store: await openStore(dir), cwd, arborHome: home, model, askPollMs: 25 });
    const result = await b.runtime.runs.resume(sessionId).result;
    expect(result.status).toBe("done");
    expect(toolResultsSent(model, 0)).toContain('\\"SQLite\\"');
    expect(await b.store.listAsks({ sessionId })).toHaveLength(1);
    expect((await transcript(b.store, sessionId)).at(-1)).toContain("Using SQLite.");
  });
});

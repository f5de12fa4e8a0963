import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";

/**
 * A question the agent asks (`question` tool) when `arbor run` has no terminal: the run stops (exit 3)
 * naming the command that answers it; `arbor approvals pending` lists it; `arbor approve <id>
 * --answer …` answers it by id, once; and continuing the session hands the answer to the model.
 */

const e2e = setupCliE2e("arbor-answer-question-e2e-");

const QUESTION = { question: "Which database?", options: [{ label: "PostgreSQL" }, { label: "SQLite" }] };

interface ListedAsk {
  kind: string;
  id: string;
  sessionId: string;
}

describe("arbor approve <question-id> --answer", () => {
  it("answers a question a run stopped on, by id and once; the continued session's model reads the answer", async () => {
    const baseURL = await e2e.fake([
      [toolCall("question", QUESTION, { id: "q1" })],
      // Continued: the model asks the same question again and is given the answer already recorded.
      [toolCall("question", QUESTION, { id: "q2" })],
      [text("Going with SQLite.")],
    ]);
    const r = await e2e.cli(e2e.runArgs(baseURL, "set up the database"));
    expect(r.code, r.stderr).toBe(3);
    const asked = runEvents(r).find((e) => e.type === "question_request") as { id: string; session_id: string } | undefined;
    expect(asked).toBeDefined();
    const { id, session_id: sessionId } = asked!;
    expect(r.stdout + r.stderr).toContain(`arbor approve ${id} --answer`);

    const listed = await e2e.cli(["approvals", "pending", "--json"]);
    expect((JSON.parse(listed.stdout) as { asks: ListedAsk[] }).asks).toEqual([
      expect.objectContaining({ kind: "question", id, sessionId }),
    ]);
    const human = await e2e.cli(["approvals", "pending"]);
    expect(human.stdout).toContain(`${id}  question`);
    expect(human.stdout).toContain('question "Which database?" (PostgreSQL / SQLite)');

    const wrong = await e2e.cli(["approve", id]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--answer");
    // Option 2, by its number.
    const answered = await e2e.cli(["approve", id.slice(0, 14), "--answer", "2"]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`Answered "SQLite": question ${id}`);
    const again = await e2e.cli(["approve", id, "--answer", "PostgreSQL"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("answered already");

    const go = await e2e.cli([...e2e.runArgs(baseURL, "go on"), "--session", sessionId]);
    expect(go.code, go.stderr).toBe(0);
    const events = runEvents(go);
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ tool: "question", is_error: false });
    expect(JSON.stringify(events)).toContain('The user answered the question \\"Which database?\\": \\"SQLite\\"');
    expect(events.some((e) => e.type === "question_request")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "done", text: "Going with SQLite." });
  }, 90_000);
});

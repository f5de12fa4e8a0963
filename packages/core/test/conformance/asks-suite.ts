import { describe, expect, it } from "vitest";
import type { AskInput } from "../../src/store/asks.js";
import { type MakeHarness, twoInstancesPerTest } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

const HOUR = 3_600_000;

function ask(id: string, sessionId: string, createdAt: string, expiresInMs = HOUR): AskInput {
  return {
    id,
    kind: "permission",
    sessionId,
    callId: `call-${id}`,
    request: { permission: "bash", patterns: ["rm -rf x"] },
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + expiresInMs).toISOString(),
  };
}

/** Asks kept in the store: every process lists and answers them, each exactly once. */
export function asksSuite(makeHarness: MakeHarness): void {
  describe("asks", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = twoInstancesPerTest(makeHarness);

    it("an ask recorded by one process is listed and answered by another, exactly once", async () => {
      const { id: sessionId } = await h.store.createSession();
      const { id: otherSession } = await h.store.createSession();
      const lease = await h.store.acquireLease(sessionId, "a run");
      const now = Date.now();
      await h.store.createAsk(ask("perm_b", sessionId, new Date(now + 1).toISOString()));
      await h.store.createAsk(ask("perm_a", sessionId, new Date(now).toISOString()));
      await h.store.createAsk(ask("perm_c", otherSession, new Date(now + 2).toISOString()));
      expect((await h.other.listAsks()).map((a) => a.id)).toEqual(["perm_a", "perm_b", "perm_c"]);
      expect((await h.other.listAsks({ sessionId })).map((a) => a.id)).toEqual(["perm_a", "perm_b"]);

      // Answered from the other process while this one holds the session's lease.
      const at = new Date().toISOString();
      const answered = await h.other.answerAsk("perm_a", { value: { reply: "once" }, at });
      expect(answered.answer).toEqual({ value: { reply: "once" }, at });
      expect((await h.store.getAsk("perm_a"))?.answer).toEqual({ value: { reply: "once" }, at });
      expect((await h.store.listAsks({ unanswered: true })).map((a) => a.id)).toEqual(["perm_b", "perm_c"]);

      const second = await expectCode(h.store.answerAsk("perm_a", { value: { reply: "reject" }, at }), "ask_already_answered");
      expect(second.details).toMatchObject({ answer: { value: { reply: "once" } } });
      expect((await h.other.getAsk("perm_a"))?.answer?.value).toEqual({ reply: "once" });
      await lease.release();
    });

    it("of two answers racing from two processes exactly one lands", async () => {
      const { id: sessionId } = await h.store.createSession();
      await h.store.createAsk(ask("perm_race", sessionId, new Date().toISOString()));
      const at = new Date().toISOString();
      const results = await Promise.allSettled([
        h.store.answerAsk("perm_race", { value: { reply: "once" }, at }),
        h.other.answerAsk("perm_race", { value: { reply: "reject" }, at }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const landed = results.find((r) => r.status === "fulfilled")!.value.answer;
      expect((await h.store.getAsk("perm_race"))?.answer).toEqual(landed);
    });

    it("refuses an unknown id, a taken id and an answer after the expiry, changing nothing", async () => {
      const { id: sessionId } = await h.store.createSession();
      const created = new Date(Date.now() - 2 * HOUR).toISOString();
      await h.store.createAsk(ask("perm_old", sessionId, created, HOUR));
      await expectCode(h.other.createAsk(ask("perm_old", sessionId, created)), "invalid_input");
      await expectCode(
        h.other.answerAsk("perm_none", { value: { reply: "once" }, at: new Date().toISOString() }),
        "ask_not_found",
      );
      await expectCode(h.other.answerAsk("perm_old", { value: { reply: "once" }, at: new Date().toISOString() }), "ask_expired");
      expect((await h.store.getAsk("perm_old"))?.answer).toBeUndefined();
      expect(await h.store.getAsk("perm_none")).toBeUndefined();
      await expectCode(h.store.createAsk({ ...ask("bad id!", sessionId, created) }), "invalid_input");
    });

    it("a plan approval is an ask of its own kind: listed by kind from another process, answered once", async () => {
      const { id: sessionId } = await h.store.createSession();
      const now = Date.now();
      await h.store.createAsk(ask("perm_k", sessionId, new Date(now).toISOString()));
      const planAsk: AskInput = {
        id: "plan_k",
        kind: "plan",
        sessionId,
        request: {
          planId: `${sessionId}:0123abcd`,
          sessionId,
          title: "Ship it",
          steps: [{ id: 1, title: "Do", status: "pending" }],
        },
        createdAt: new Date(now + 1).toISOString(),
        expiresAt: new Date(now + HOUR).toISOString(),
      };
      await h.store.createAsk(planAsk);
      expect((await h.other.listAsks({ kind: "plan" })).map((a) => a.id)).toEqual(["plan_k"]);
      expect((await h.other.listAsks({ kind: "permission", sessionId })).map((a) => a.id)).toEqual(["perm_k"]);
      expect(await h.other.getAsk("plan_k")).toMatchObject({ kind: "plan", request: planAsk.request });
      const at = new Date().toISOString();
      await h.other.answerAsk("plan_k", { value: { approved: true }, at });
      await expectCode(h.store.answerAsk("plan_k", { value: { approved: false }, at }), "ask_already_answered");
      expect((await h.store.getAsk("plan_k"))?.answer?.value).toEqual({ approved: true });
      expect((await h.store.listAsks({ kind: "plan", unanswered: true })).map((a) => a.id)).toEqual([]);
    });

    it("deleting a session deletes its asks", async () => {
      const { id: sessionId } = await h.store.createSession();
      await h.store.createAsk(ask("perm_gone", sessionId, new Date().toISOString()));
      await h.store.deleteSession(sessionId);
      expect(await h.other.getAsk("perm_gone")).toBeUndefined();
      expect(await h.other.listAsks({ sessionId })).toEqual([]);
    });
  });
}

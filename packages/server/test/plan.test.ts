import { join } from "node:path";
import { resolveConfig, type StoreSpec } from "@arbor/core";
import { scriptedModel } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { GoalTreeWire } from "../../core/src/goal/goal-wire.js";
import { inNamespace } from "../../core/test/helpers/sql-databases.js";
import { planningModel } from "./helpers/models.js";
import { errorOf, startInstance, startServer, workspaceDir } from "./helpers/server.js";
import { readSse, typesOf } from "./helpers/sse.js";

const config = resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]);

interface TraceBody {
  trace_id: string;
  goal_tree: GoalTreeWire | null;
  sub_traces: Record<string, { trace_id: string; task?: string; agent_type: string; status?: string }>;
}

function stepUpdates(events: readonly { type: string; step_id?: unknown; status?: unknown }[]): string[] {
  return events.filter((e) => e.type === "plan_updated").map((e) => `${e.step_id}:${e.status}`);
}

describe("plan mode over HTTP", () => {
  it("POST /api/chat streams plan_created, the approval round trip, each step and done; the trace shows the plan", async () => {
    const server = await startServer({ runtime: { model: planningModel(), config } });
    const res = await server.api("/api/chat", { json: { message: "check the repo" } });
    expect(res.status).toBe(200);
    let approval: Promise<Response> | undefined;
    const messages = await readSse(res, (m) => {
      if (m.event.type === "plan_approval_request") {
        approval = server.api("/api/plan/approve", { json: { plan_id: m.event.plan_id, approved: true } });
      }
      return undefined;
    });
    const answered = await approval!;
    expect(answered.status).toBe(200);
    const sessionId = messages[0]!.event.session_id;
    expect(await answered.json()).toMatchObject({ session_id: sessionId, approved: true, resumed: false });

    const types = typesOf(messages);
    expect(types.indexOf("plan_created")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("plan_created")).toBeLessThan(types.indexOf("plan_approval_request"));
    expect(stepUpdates(messages.map((m) => m.event))).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
    expect(types.at(-1)).toBe("done");

    const trace = await server.api(`/api/traces/${sessionId}`);
    expect(trace.status).toBe(200);
    const body = (await trace.json()) as TraceBody;
    const tree = body.goal_tree!;
    const plan = tree.goals.find((g) => g.description === "Check the repo")!;
    expect(plan.status).toBe("completed");
    const steps = tree.goals.filter((g) => g.parent_id === plan.id);
    expect(steps.map((g) => [g.description, g.status, g.type, g.agent_call_mode])).toEqual([
      ["Read the code", "completed", "agent_call", "plan_step"],
      ["Run the tests", "completed", "agent_call", "plan_step"],
    ]);
    expect(Object.values(body.sub_traces).map((s) => [s.task, s.agent_type, s.status])).toEqual([
      ["Read the code", "plan_step", "completed"],
      ["Run the tests", "plan_step", "completed"],
    ]);
    expect(steps.flatMap((g) => g.sub_trace_ids ?? []).sort()).toEqual(Object.keys(body.sub_traces).sort());
  });

  it("a plan whose run is gone is still answerable: the answer resumes it in a new run", async () => {
    const server = await startServer({ runtime: { model: planningModel(), config } });
    const res = await server.api("/api/chat", { json: { message: "check the repo" } });
    let planId = "";
    const first = await readSse(res, (m) => {
      if (m.event.type !== "plan_approval_request") return undefined;
      planId = m.event.plan_id;
      return false;
    });
    const sessionId = first[0]!.event.session_id;
    const aborted = await server.api(`/api/sessions/${sessionId}/abort`, { method: "POST" });
    expect(await aborted.json()).toEqual({ aborted: true });
    // Wait for the aborted run to end (its stream says so) before answering.
    const ended = await readSse(await server.api(`/api/sessions/${sessionId}/stream`));
    expect(ended.at(-1)?.event).toMatchObject({ type: "error", code: "aborted" });
    const lastId = ended.at(-1)!.id!;

    // No run waits any more, but the session's record keeps the plan answerable and listed.
    const pending = await server.api(`/api/plan/pending?session_id=${sessionId}`);
    expect(await pending.json()).toEqual({
      plans: [
        {
          plan_id: planId,
          session_id: sessionId,
          ask_id: expect.stringMatching(/^plan_/),
          expires_at: expect.any(String),
          title: "Check the repo",
          steps: [
            { id: 1, title: "Read the code", status: "pending" },
            { id: 2, title: "Run the tests", status: "pending" },
          ],
        },
      ],
    });
    const answered = await server.api("/api/plan/approve", { json: { plan_id: planId, approved: true } });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ plan_id: planId, session_id: sessionId, approved: true, resumed: true });
    const resumed = await readSse(
      await server.api(`/api/sessions/${sessionId}/stream`, { headers: { "Last-Event-ID": lastId } }),
    );
    expect(stepUpdates(resumed.map((m) => m.event))).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
    expect(typesOf(resumed).at(-1)).toBe("done");

    const again = await errorOf(await server.api("/api/plan/approve", { json: { plan_id: planId, approved: false } }));
    expect(again).toMatchObject({ status: 409, code: "plan_not_pending" });
    const unknown = await errorOf(
      await server.api("/api/plan/approve", { json: { plan_id: `${sessionId}:00000000`, approved: true } }),
    );
    expect(unknown).toMatchObject({ status: 404, code: "plan_not_found" });
    const bad = await errorOf(await server.api("/api/plan/approve", { json: { plan_id: "nope", approved: true } }));
    expect(bad).toMatchObject({ status: 400, code: "invalid_input" });
  });

  /** Instance A's run waits on its plan; instance B, over the same store, lists it and approves it; A's run goes on once. */
  async function approvedOnAnotherInstance(store: string | StoreSpec) {
    const root = workspaceDir();
    const a = await startInstance(root, { store, runtime: { model: planningModel(), config, askPollMs: 25 } });
    const b = await startInstance(root, { store, runtime: { model: scriptedModel([]), config } });
    const res = await a.api("/api/chat", { json: { message: "check the repo" } });
    let asked: (planId: string) => void = () => {};
    const planIdOf = new Promise<string>((resolve) => {
      asked = resolve;
    });
    const streamed = readSse(res, (m) => {
      if (m.event.type === "plan_approval_request") asked(m.event.plan_id);
      return undefined;
    });
    const planId = await planIdOf;
    // B has no run of its own: it lists A's plan from the store.
    const listed = (await (await b.api("/api/plan/pending")).json()) as { plans: { plan_id: string; ask_id?: string }[] };
    expect(listed.plans).toEqual([expect.objectContaining({ ask_id: expect.stringMatching(/^plan_/) })]);
    const answered = await b.api("/api/plan/approve", { json: { plan_id: listed.plans[0]!.plan_id, approved: true } });
    expect(await answered.json()).toMatchObject({ approved: true, resumed: false });
    const again = await errorOf(
      await a.api("/api/plan/approve", { json: { plan_id: listed.plans[0]!.plan_id, approved: false } }),
    );
    expect(again).toMatchObject({ status: 409, code: "plan_not_pending" });
    const events = (await streamed).map((m) => m.event);
    expect(listed.plans[0]!.plan_id).toBe(planId);
    expect(stepUpdates(events)).toEqual(["1:running", "1:completed", "2:running", "2:completed"]);
    expect(events.filter((e) => e.type === "plan_approval_request")).toHaveLength(1);
    expect(typesOf(await streamed).at(-1)).toBe("done");
    expect(await (await a.api("/api/plan/pending")).json()).toEqual({ plans: [] });
  }

  it("file store: GET /api/plan/pending on instance B lists A's plan; approving it on B resumes A's run once", async () => {
    await approvedOnAnotherInstance(join(workspaceDir(), "store"));
  });

  it("PostgreSQL: GET /api/plan/pending on instance B lists A's plan; approving it on B resumes A's run once", async () => {
    await inNamespace("postgres", (spec) => approvedOnAnotherInstance(spec));
  });
});

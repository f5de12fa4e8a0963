import type { Entry } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { TraceResponse } from "../src/trace-schemas.js";
import { exploringModel } from "./helpers/models.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse, typesOf } from "./helpers/sse.js";

/** A trace as GET /api/traces/:id sends it. */
type TraceBody = z.output<typeof TraceResponse>;

async function chat(api: (p: string, i?: object) => Promise<Response>, body: object): Promise<string> {
  const res = await api("/api/chat", { json: body });
  expect(res.status).toBe(200);
  const messages = await readSse(res);
  expect(typesOf(messages).at(-1)).toBe("done");
  return messages[0]!.event.session_id;
}

interface SeedMessage {
  message_id: string;
  trace_id: string;
  role: string;
  sequence: number;
  goal_id: string | null;
  tool_call_id: string | null;
  description: string;
}

describe("trace routes", () => {
  it("goal_id=2.1 names a goal by its number in the plan, as the seed's examples do", async () => {
    const server = await startServer({
      script: [
        [toolCall("goal", { add: "Read, Build" })],
        [toolCall("goal", { add: "Design, Code", under: "2", focus: "2.1" })],
        [text("Designing now.")],
      ],
    });
    const id = await chat(server.api, { message: "plan it" });
    const byNumber = (await (await server.api(`/api/traces/${id}/messages?goal_id=2.1`)).json()) as { messages: SeedMessage[] };
    const design = (await (await server.api(`/api/traces/${id}`)).json()) as TraceBody;
    const designId = design.goal_tree?.goals.find((g) => g.description === "Design")?.id;
    expect(designId).toBe("3");
    const byId = (await (await server.api(`/api/traces/${id}/messages?goal_id=${designId}`)).json()) as {
      messages: SeedMessage[];
    };
    expect(byNumber.messages.length).toBeGreaterThan(0);
    expect(byNumber.messages).toEqual(byId.messages);
    expect(byNumber.messages.every((m) => m.goal_id === "3")).toBe(true);
  });

  it("a pending goal edited and another removed by the goal tool show in GET /api/traces/:id and the goal messages", async () => {
    const server = await startServer({
      script: [
        [toolCall("goal", { add: "Read the code, Fix the bug, Write docs" })],
        [toolCall("goal", { edit: "2", to: "Fix the parser bug", remove: "3" })],
        [toolCall("goal", { remove: "1", focus: "1" })],
        [text("Plan ready.")],
      ],
    });
    const id = await chat(server.api, { message: "plan it" });
    const body = (await (await server.api(`/api/traces/${id}`)).json()) as TraceBody;
    expect(body.goal_tree?.goals.map((g) => [g.id, g.description, g.status])).toEqual([
      ["1", "Read the code", "pending"],
      ["2", "Fix the parser bug", "pending"],
    ]);
    // Removing goal 1 and focusing it in one call is refused whole: the plan is as it was.
    const results = (await server.store.getActivePath(id)).flatMap((e) =>
      e.type === "message" && e.message.role === "tool" ? e.message.content.map((p) => JSON.stringify(p.output)) : [],
    );
    expect(results[1]).toContain('Edited 2. Fix the parser bug (was \\"Fix the bug\\")');
    expect(results[1]).toContain("Removed 3. Write docs from the plan.");
    expect(results[2]).toContain('focus=\\"1\\" names a goal this call removes');
  });

  it("GET /api/traces/:id serves the trace, its goal tree and its sub-traces; messages filter by goal", async () => {
    const server = await startServer({ runtime: { model: exploringModel() } });
    const id = await chat(server.api, { message: "pick one" });

    const res = await server.api(`/api/traces/${id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as TraceBody;
    expect(body).toMatchObject({ trace_id: id, agent_type: "main", status: "completed" });
    // The trace model's names only: none of core's camelCase reaches this route.
    expect(JSON.stringify(body)).not.toMatch(
      /"(agentType|parentSessionId|selfStats|cumulativeStats|messageCount|parentId|subTraceMetadata|currentId)"/,
    );
    expect(body.goal_tree?.goals[0]).toMatchObject({ parent_id: null, self_stats: { message_count: expect.any(Number) } });
    expect(body.goal_tree?.goals.map((g) => [g.id, g.type, g.status])).toEqual([
      ["1", "agent_call", "completed"],
      ["2", "normal", "in_progress"],
    ]);
    const subs = Object.values(body.sub_traces);
    expect(subs.map((s) => s.task)).toEqual(["branch one", "branch two"]);
    expect(Object.keys(body.sub_traces)).toEqual(subs.map((s) => s.trace_id));
    for (const sub of subs) {
      // The trace's context under the seed's snake_case names.
      expect(Object.keys(sub.context ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(sub.context ?? {}).every((k) => /^[a-z_]+$/.test(k))).toBe(true);
      expect(sub).toMatchObject({ parent_trace_id: id, parent_goal_id: "1", agent_type: "explore", status: "completed" });
      expect(body.goal_tree?.goals[0]?.sub_trace_metadata?.[sub.trace_id]).toMatchObject({ task: sub.task, status: "completed" });
      // A sub-trace is a trace too.
      const subRes = await server.api(`/api/traces/${encodeURIComponent(sub.trace_id)}`);
      expect(((await subRes.json()) as TraceBody).parent_trace_id).toBe(id);
    }

    // Seed 000's message records, under the seed's names.
    const goalOne = await server.api(`/api/traces/${id}/messages?goal_id=1`);
    const records = ((await goalOne.json()) as { messages: SeedMessage[] }).messages;
    expect(records.length).toBe(4);
    expect(records.every((m) => m.goal_id === "1" && m.trace_id === id)).toBe(true);
    expect(Object.keys(records[0]!).sort()).toEqual(
      [
        "message_id",
        "trace_id",
        "role",
        "sequence",
        "goal_id",
        "tool_call_id",
        "content",
        "description",
        "tokens",
        "cost",
        "duration_ms",
        "created_at",
      ].sort(),
    );
    const tool = records.find((m) => m.role === "tool");
    expect(tool?.tool_call_id).toEqual(expect.any(String));
    const assistant = records.find((m) => m.role === "assistant" && m.tool_call_id === null);
    expect(assistant?.description).toMatch(/^tool call: |./);
    const all = ((await (await server.api(`/api/traces/${id}/messages`)).json()) as { messages: SeedMessage[] }).messages;
    expect(all.length).toBeGreaterThan(records.length);
    expect(all.map((m) => m.sequence)).toEqual(all.map((_, i) => i + 1));
    // A goal's records keep their place in the whole trace.
    for (const r of records) expect(all[r.sequence - 1]?.message_id).toBe(r.message_id);
    // format=entries: the entries as stored, for clients that read core's shape.
    const entries = (
      (await (await server.api(`/api/traces/${id}/messages?goal_id=1&format=entries`)).json()) as {
        messages: Entry[];
      }
    ).messages;
    expect(entries.map((e) => e.id)).toEqual(records.map((r) => r.message_id));
    expect(entries.every((e) => e.type === "message" && e.message.goalId === "1")).toBe(true);
    // limit: the first messages, and how many there are in all.
    const first = (await (await server.api(`/api/traces/${id}/messages?goal_id=1&format=entries&limit=3`)).json()) as {
      messages: Entry[];
      total: number;
    };
    expect(first.messages.map((e) => e.id)).toEqual(entries.slice(0, 3).map((e) => e.id));
    expect(first.total).toBe(entries.length);
    expect(await errorOf(await server.api(`/api/traces/${id}/messages?format=entries&limit=0`))).toMatchObject({ status: 400 });
    expect(await errorOf(await server.api(`/api/traces/${id}/messages?format=xml`))).toMatchObject({ status: 400 });

    expect(await errorOf(await server.api(`/api/traces/${id}/messages?goal_id=9`))).toMatchObject({
      status: 404,
      code: "goal_not_found",
    });
    // A dotted goal_id is the goal's number in the plan; this plan has no 2.1.
    expect(await errorOf(await server.api(`/api/traces/${id}/messages?goal_id=2.1`))).toMatchObject({
      status: 404,
      code: "goal_not_found",
    });
    expect(await errorOf(await server.api(`/api/traces/${id}/messages?goal_id=2.x`))).toMatchObject({ status: 400 });
    expect(await errorOf(await server.api("/api/traces/nope"))).toMatchObject({ status: 404, code: "session_not_found" });
    expect(await errorOf(await server.api("/api/traces/..%2Fx"))).toMatchObject({ status: 400 });
  });

  it("PATCH /api/traces/:id/replay branches before an edited goal call and continues there", async () => {
    const script = [
      [toolCall("goal", { add: "Approach A, Test" }, { id: "plan" })],
      [text("went with A")],
      // The replayed run: the edited call is redone by the runtime, then the model continues.
      [text("went with B")],
    ];
    const server = await startServer({ script });
    const id = await chat(server.api, { message: "build it" });
    const before = await server.store.getActivePath(id);
    const call = before.find((e) => e.type === "message" && e.message.role === "assistant")!;

    const bad = await server.api(`/api/traces/${id}/replay`, {
      method: "PATCH",
      json: { from_message_id: call.id, modified_tool_call: { tool_call_id: "plan", new_arguments: { bogus: 1 } } },
    });
    const badEvents = await readSse(bad);
    expect(badEvents.at(-1)?.event).toMatchObject({ type: "error", code: "invalid_input" });
    expect((await server.store.getActivePath(id)).map((e) => e.id)).toEqual(before.map((e) => e.id));

    const res = await server.api(`/api/traces/${id}/replay`, {
      method: "PATCH",
      json: {
        from_message_id: call.id,
        modified_tool_call: { tool_call_id: "plan", new_arguments: { add: "Approach B, Test" } },
      },
    });
    expect(res.status).toBe(200);
    expect(typesOf(await readSse(res)).at(-1)).toBe("done");

    const trace = (await (await server.api(`/api/traces/${id}`)).json()) as TraceBody;
    expect(trace.goal_tree?.goals.map((g) => g.description)).toEqual(["Approach B", "Test"]);
    const after = await server.store.getActivePath(id);
    // The new branch shares the user message and leaves the old one intact beside it.
    expect(after[0]!.id).toBe(before[0]!.id);
    expect(after[1]!.parentId).toBe(before[0]!.id);
    expect(after[1]!.id).not.toBe(call.id);
    expect((await server.store.getEntry(id, call.id))?.id).toBe(call.id);
    const last = after.at(-1)!;
    expect(last.type === "message" && last.message.content[0]).toMatchObject({ type: "text", text: "went with B" });

    const notGoal = await server.api(`/api/traces/${id}/replay`, {
      method: "PATCH",
      json: { from_message_id: "0000000000000000", modified_tool_call: { tool_call_id: "x", new_arguments: {} } },
    });
    expect((await readSse(notGoal)).at(-1)?.event).toMatchObject({ type: "error", code: "entry_not_found" });

    // The runtime recorded each run that started, the replay as one; refused replays publish nothing.
    await server.runtime.close();
    const ends = (await server.store.listEvents(id)).flatMap((r) => {
      const data = r.data as { kind?: string; status?: string };
      return r.type === "trace_started" || r.type === "trace_completed" ? [`${r.type}:${data.kind ?? data.status}`] : [];
    });
    expect(ends).toEqual(["trace_started:prompt", "trace_completed:done", "trace_started:replay", "trace_completed:done"]);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { DEBUG_EVENT_TYPE, type DebugRecord, readDebugRecords, type StoredDebugRecord } from "../../src/events/debug-records.js";
import type { WatchMessage } from "../../src/events/watch-events.js";
import { WatchHub } from "../../src/events/watch-hub.js";
import { LlmCache } from "../../src/llm/cache/llm-cache.js";
import { DebugMiddleware } from "../../src/middleware/debug-middleware.js";
import { collect, harness } from "../loop/harness.js";

const script = () =>
  scriptedModel([
    [text("Reading the file."), toolCall("read", { path: "a.txt" }, { id: "c1" }), usage({ inputTokens: 40, outputTokens: 9 })],
    [text("x".repeat(1500)), usage({ inputTokens: 60, outputTokens: 300 })],
  ]);

async function debugRun(level: "off" | "basic" | "standard" | "full", prompt = `p${"!".repeat(2500)}`) {
  const h = await harness({ model: script() });
  writeFileSync(join(h.cwd, "a.txt"), "hello\n");
  const { result } = await collect(h.runtime.runs.run({ prompt, debug: level }));
  expect(result.status).toBe("done");
  const { records } = await readDebugRecords(h.store, result.sessionId);
  return { ...h, result, records };
}

const strip = (r: StoredDebugRecord) => {
  const { event_id: _id, run_id: _run, started_at: _at, duration_ms: _ms, ...rest } = r;
  return rest;
};

describe("DebugMiddleware", () => {
  it("off records nothing", async () => {
    const { records } = await debugRun("off");
    expect(records).toEqual([]);
  });

  it("basic records tool calls and their timing only", async () => {
    const { records } = await debugRun("basic");
    expect(records.map(strip)).toEqual([{ kind: "tool", call_id: "c1", level: "basic", tool: "read", is_error: false }]);
    expect(records[0]?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(records[0]?.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("standard adds model calls with the input cut to 2,000 and the output to 1,000 characters", async () => {
    const { records } = await debugRun("standard");
    expect(records.map((r) => `${r.kind}:${r.call_id}`)).toEqual(["llm:llm_1", "tool:c1", "llm:llm_2"]);
    const [first, tool, second] = records;
    expect(first).toMatchObject({ kind: "llm", node: "build", model: "testkit/scripted", input_tokens: 40, output_tokens: 9 });
    expect(first?.input?.length).toBeLessThanOrEqual(2000 + "...".length);
    expect(first?.input?.startsWith("p!!!")).toBe(true);
    expect(tool).toMatchObject({ input: '{"path":"a.txt"}', output: expect.stringContaining("hello") });
    expect(second?.output).toBe(`${"x".repeat(1000)}...`);
    expect(new Set(records.map((r) => r.run_id)).size).toBe(1);
  });

  it("full records each call's whole prompt (system prompt and tool results included) and whole output", async () => {
    const { records } = await debugRun("full", "What does a.txt say?");
    const llm = records.filter((r): r is Extract<DebugRecord, { kind: "llm" }> & StoredDebugRecord => r.kind === "llm");
    expect(llm).toHaveLength(2);
    const second = llm[1]!;
    expect(second.input).toMatch(/^\[system\]\n/);
    expect(second.input).toContain("[user]\nWhat does a.txt say?");
    expect(second.input).toContain('[assistant]\nReading the file.\n→ read {"path":"a.txt"}');
    expect(second.input).toMatch(/\[tool\]\n← read: .*hello/s);
    expect(second.output).toBe("x".repeat(1500));
    expect(second).toMatchObject({ level: "full", finish_reason: "stop", settings: { temperature: 0.7 } });
    expect((second.settings as { tools?: string[] }).tools).toContain("read");
    expect(llm[0]?.output).toBe('Reading the file.\n→ read {"path":"a.txt"}');
    expect(llm[0]?.input).not.toContain("[tool]");
  });

  it("keeps records in the session's event log, out of the trace watch, and deletes them with the session", async () => {
    const { store, result } = await debugRun("standard");
    const log = await store.listEvents(result.sessionId);
    expect(log.filter((e) => e.type === DEBUG_EVENT_TYPE)).toHaveLength(3);
    const page = await readDebugRecords(store, result.sessionId, { limit: 2 });
    expect(page.records).toHaveLength(2);
    const rest = await readDebugRecords(store, result.sessionId, { after: page.nextAfter ?? 0 });
    expect(rest.records.map((r) => r.call_id)).toEqual(["llm_2"]);
    expect(rest.nextAfter).toBeUndefined();

    const sent: WatchMessage[] = [];
    const stop = await new WatchHub(store).watch(result.sessionId, 0, (m) => sent.push(m));
    stop();
    expect(sent.map((m) => m.event as string)).not.toContain(DEBUG_EVENT_TYPE);
    expect(sent.length).toBeGreaterThan(0);

    await store.deleteSession(result.sessionId);
    await expect(readDebugRecords(store, result.sessionId)).rejects.toMatchObject({ code: "session_not_found" });
  });

  it("the runtime's level applies unless a run says otherwise; marks cache hits; a collector of its own", async () => {
    const model = scriptedModel([[text("one")], [text("two")]]);
    const cache = new LlmCache();
    const now = Date.parse("2026-03-01T10:00:00.000Z");
    const { runtime, store } = await harness({
      model,
      cache,
      debug: "standard",
      clock: { now: () => now, sleep: async () => {} },
    });
    const a = await collect(runtime.runs.run({ prompt: "same" }));
    const b = await collect(runtime.runs.run({ prompt: "same" }));
    const c = await collect(runtime.runs.run({ prompt: "same", debug: "off" }));
    expect((await readDebugRecords(store, a.result.sessionId)).records.map((r) => r.kind === "llm" && r.cached)).toEqual([false]);
    expect((await readDebugRecords(store, b.result.sessionId)).records.map((r) => r.kind === "llm" && r.cached)).toEqual([true]);
    expect((await readDebugRecords(store, c.result.sessionId)).records).toEqual([]);

    // A collector of one's own, not persisted: an aborted run's open call is recorded as interrupted.
    const seen: DebugRecord[] = [];
    const { runtime: r2 } = await harness({ model: scriptedModel([[{ type: "hang" }]]) });
    const handle = r2.runs.run({
      prompt: "wait",
      middleware: [new DebugMiddleware({ level: "standard", persist: false, onRecord: (rec) => seen.push(rec) })],
    });
    for await (const event of handle) if (event.type === "llm_start") handle.abort();
    expect((await handle.result).status).toBe("aborted");
    expect(seen.map((r) => [r.kind, r.call_id, r.interrupted ?? false])).toEqual([["llm", "llm_1", false]]);
  });
});

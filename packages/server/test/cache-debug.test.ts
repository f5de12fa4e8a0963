import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { LlmCache } from "@arbor/core";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { CacheStatsResponse, DebugResponse } from "../src/cache-debug-schemas.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse, tokenText, typesOf } from "./helpers/sse.js";

/** A fixed clock, so two runs have the same system prompt (it holds the date) and so the same cache key. */
const clock = { now: () => Date.parse("2026-03-01T10:00:00.000Z"), sleep: async () => {} };

describe("GET /api/cache/stats and POST /api/cache/clear", () => {
  it("report and clear the runtime's LLM cache; a repeated chat is answered from it", async () => {
    const cache = new LlmCache({ now: clock.now });
    const { api } = await startServer({
      script: [[text("Hi!", { chunks: 2 })], [text("never played")]],
      runtime: { cache, clock },
    });
    const empty = CacheStatsResponse.parse(await (await api("/api/cache/stats")).json());
    expect(empty.llm).toEqual({
      enabled: true,
      store: "memory",
      ttl_seconds: 86400,
      hits: 0,
      misses: 0,
      writes: 0,
      entries: 0,
      bytes: 0,
    });

    const first = await readSse(await api("/api/chat", { json: { message: "hello" } }));
    const second = await readSse(await api("/api/chat", { json: { message: "hello" } }));
    expect(typesOf(second)).toEqual(typesOf(first));
    expect(second.find((m) => m.event.type === "llm_end")?.event).toMatchObject({ cached: true });
    expect(tokenText(second)).toBe("Hi!");

    const stats = CacheStatsResponse.parse(await (await api("/api/cache/stats")).json());
    expect(stats.llm).toMatchObject({ hits: 1, misses: 1, writes: 1, entries: 1 });
    expect(stats.llm.bytes).toBeGreaterThan(0);

    const cleared = await api("/api/cache/clear?type=llm", { method: "POST" });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ cleared: { llm: 1 } });
    expect(CacheStatsResponse.parse(await (await api("/api/cache/stats")).json()).llm).toMatchObject({
      entries: 0,
      bytes: 0,
      hits: 1,
    });
    expect(await errorOf(await api("/api/cache/clear?type=tools", { method: "POST" }))).toMatchObject({
      status: 400,
      code: "invalid_input",
    });
  });

  it("say the cache is off when the runtime has none", async () => {
    const { api } = await startServer();
    expect(await (await api("/api/cache/stats")).json()).toEqual({
      llm: { enabled: false, hits: 0, misses: 0, writes: 0, entries: 0, bytes: 0 },
    });
    expect(await (await api("/api/cache/clear", { method: "POST" })).json()).toEqual({ cleared: { llm: 0 } });
  });
});

describe("GET /api/sessions/:id/debug", () => {
  const script = [
    [text("Reading."), toolCall("read", { path: "a.txt" }, { id: "c1" }), usage({ inputTokens: 10, outputTokens: 2 })],
    [text("It says hello."), usage({ inputTokens: 20, outputTokens: 3 })],
  ];

  it("serves the records of a chat made with debug: true (standard) as soon as its done event is read", async () => {
    const { api, cwd } = await startServer({ script });
    writeFileSync(join(cwd, "a.txt"), "hello\n");
    const messages = await readSse(await api("/api/chat", { json: { message: "What does a.txt say?", debug: true } }));
    expect(typesOf(messages).at(-1)).toBe("done");
    const sessionId = messages[0]?.event.session_id as string;

    const res = await api(`/api/sessions/${sessionId}/debug`);
    expect(res.status).toBe(200);
    const body = DebugResponse.parse(await res.json());
    expect(body.session_id).toBe(sessionId);
    expect(body.records.map((r) => [r.kind, r.call_id, r.level])).toEqual([
      ["llm", "llm_1", "standard"],
      ["tool", "c1", "standard"],
      ["llm", "llm_2", "standard"],
    ]);
    expect(body.records[0]).toMatchObject({ input: "What does a.txt say?", output: "Reading.", input_tokens: 10 });
    expect(body.next_after).toBeUndefined();

    const page = DebugResponse.parse(await (await api(`/api/sessions/${sessionId}/debug?limit=1`)).json());
    expect(page.records).toHaveLength(1);
    const rest = DebugResponse.parse(await (await api(`/api/sessions/${sessionId}/debug?after=${page.next_after}`)).json());
    expect(rest.records.map((r) => r.call_id)).toEqual(["c1", "llm_2"]);
  });

  it("records whole prompts with debug: full, nothing with false, and 404s for a missing session", async () => {
    const { api, cwd } = await startServer({ script: [...script, [text("plain")]] });
    writeFileSync(join(cwd, "a.txt"), "hello\n");
    const full = await readSse(await api("/api/chat", { json: { message: "What does a.txt say?", debug: "full" } }));
    const sessionId = full[0]?.event.session_id as string;
    const body = DebugResponse.parse(await (await api(`/api/sessions/${sessionId}/debug`)).json());
    const last = body.records.at(-1);
    expect(last).toMatchObject({ kind: "llm", level: "full", output: "It says hello." });
    expect(last?.input).toMatch(/^\[system\]\n[\s\S]*\[user\]\nWhat does a\.txt say\?[\s\S]*← read: .*hello/);

    const off = await readSse(await api("/api/chat", { json: { message: "again", session_id: sessionId, debug: false } }));
    expect(typesOf(off).at(-1)).toBe("done");
    const after = DebugResponse.parse(await (await api(`/api/sessions/${sessionId}/debug`)).json());
    expect(after.records).toHaveLength(body.records.length);

    expect(await errorOf(await api("/api/chat", { json: { message: "x", debug: "verbose" } }))).toMatchObject({
      status: 400,
      code: "invalid_input",
    });
    expect(await errorOf(await api("/api/sessions/00000000-0000-4000-8000-000000000000/debug"))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    expect(await errorOf(await api(`/api/sessions/${sessionId}/debug?limit=0`))).toMatchObject({ status: 400 });
  });
});

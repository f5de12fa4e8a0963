import { text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

describe("concurrency", () => {
  it("50 concurrent chats on the scripted model all complete, each with its own session and ordered ids", async () => {
    const n = 50;
    const script = Array.from({ length: n }, () => [text("answer in four chunks", { chunks: 4 })]);
    const { api, store } = await startServer({ script });
    const runs = await Promise.all(
      Array.from({ length: n }, (_, i) => api("/api/chat", { json: { message: `task ${i}` } }).then((res) => readSse(res))),
    );
    for (const messages of runs) {
      expect(messages.map((m) => m.event.type)).toEqual(["llm_start", "token", "token", "token", "token", "llm_end", "done"]);
      const ids = messages.map((m) => Number(m.id));
      expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);
    }
    const sessions = new Set(runs.map((messages) => messages[0]?.event.session_id));
    expect(sessions.size).toBe(n);
    // Ids are the session event log's, so they are unique within a session (and increase strictly there).
    const allIds = runs.flatMap((messages) => messages.map((m) => `${m.event.session_id}:${m.id}`));
    expect(new Set(allIds).size).toBe(allIds.length);
    expect((await store.listSessions({ limit: 100 })).sessions).toHaveLength(n);
  });
});

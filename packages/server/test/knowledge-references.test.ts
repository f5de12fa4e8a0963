import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { json } from "./helpers/json.js";
import { addKnowledge } from "./helpers/knowledge.js";
import { startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

describe("knowledge_references in the message trace", () => {
  it("lists the passages the answer's search_knowledge_base call returned", async () => {
    const server = await startServer({
      script: [
        [toolCall("search_knowledge_base", { query: "release train" }, { id: "kb1" })],
        [text("Releases leave on Tuesdays (handbook.md).")],
      ],
    });
    const doc = await addKnowledge(server, "handbook.md", "# Handbook\n\nThe release train leaves every Tuesday at noon.\n");
    const events = await readSse(await server.api("/api/chat", { json: { message: "When do releases go out?" } }));
    const sessionId = events[0]?.event.session_id as string;
    const page = (await json(await server.api(`/api/sessions/${sessionId}/messages`))) as {
      messages: Array<{ role: string; knowledge_references: unknown[] }>;
    };
    const answer = page.messages.find((m) => m.role === "assistant")!;
    expect(answer.knowledge_references).toEqual([
      { source: doc, location: "lines 1-3", score: expect.any(Number), excerpt: expect.stringContaining("every Tuesday") },
    ]);
  });
});

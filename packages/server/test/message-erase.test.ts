import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AnyToolDefinition, defineTool, LlmCache, type Snapshot } from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { MessagePageResponse } from "../src/index.js";
import { json } from "./helpers/json.js";
import { startServer } from "./helpers/server.js";
import { chatToDone } from "./helpers/sse.js";

type Page = z.output<typeof MessagePageResponse>;
const SECRET = "IBAN DE89370400440532013000";

/** A tool whose output is over the cap, so the whole of it is saved as a blob and the entry keeps its ref. */
const dump = defineTool({
  name: "dump",
  description: "Prints a long record.",
  input: z.object({}),
  execute: async () => ({ output: `${SECRET}\n${"padding line\n".repeat(3000)}` }),
}) as AnyToolDefinition;

/** Every byte under `dir`, read raw. */
function bytesUnder(dir: string): string {
  let out = "";
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out += readFileSync(join(e.parentPath, e.name), "latin1");
  }
  return out;
}

describe("DELETE /api/sessions/:id/messages/:message_id erases the message", () => {
  it("its entries become tombstones on disk, in exports and on every branch; its blob and the LLM cache go", async () => {
    let storeDir = "";
    const blobs = new MemoryBlobStore();
    const cache = new LlmCache();
    const server = await startServer({
      script: [[toolCall("dump", {}, { id: "d1" })], [text(`Saved ${SECRET}.`)], [text("Fine.")], [text("Noted.")]],
      tools: [dump],
      runtime: { blobs, cache },
      store: (root) => {
        storeDir = join(root, "erase-store");
        return storeDir;
      },
    });
    const id = await chatToDone(server, `remember ${SECRET}`);
    await chatToDone(server, "ok", id);
    expect(blobs.size).toBe(1);
    expect((await cache.store.size()).entries).toBeGreaterThan(0);
    const before = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    const [, , answer, question] = before.messages;
    const leafBefore = (await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId as string;
    expect(bytesUnder(storeDir)).toContain(SECRET);

    expect((await server.api(`/api/sessions/${id}/messages/${question?.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.api(`/api/sessions/${id}/messages/${answer?.id}`, { method: "DELETE" })).status).toBe(204);

    // GET entries: the ids and the tree stay, each erased entry says it was deleted.
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    const erased = snapshot.entries.filter((e) => (e as { purged?: unknown }).purged);
    // The question, and the answer's two steps with the tool result between them.
    expect(erased.map((e) => e.id)).toHaveLength(4);
    expect(erased.map((e) => e.id)).toEqual(
      expect.arrayContaining([question?.id, ...(answer?.agent_steps.map((s) => s.entry_id) ?? [])]),
    );
    expect(erased[0]).toMatchObject({ purged: { messageId: question?.id }, message: { role: "user", content: [] } });
    expect(JSON.stringify(snapshot)).not.toContain(SECRET);
    expect(JSON.stringify(await server.store.exportSession(id))).not.toContain(SECRET);
    expect(bytesUnder(storeDir)).not.toContain(SECRET);
    expect(blobs.size).toBe(0);
    expect((await cache.store.size()).entries).toBe(0);

    // The active path's trace goes on without the messages; the branch before the delete shows tombstones.
    const after = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(after.messages.map((m) => m.content)).toEqual(["Fine.", "ok"]);
    await json(server.api(`/api/sessions/${id}/leaf`, { json: { entry_id: leafBefore } }));
    const old = await json<Page>(server.api(`/api/sessions/${id}/messages`));
    expect(old.messages.map((m) => [m.id, m.deleted ?? false, m.content])).toEqual([
      [before.messages[0]?.id, false, "Fine."],
      [before.messages[1]?.id, false, "ok"],
      [answer?.id, true, ""],
      [question?.id, true, ""],
    ]);
    expect(JSON.stringify(old)).not.toContain(SECRET);
  });
});

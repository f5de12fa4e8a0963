import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openStore, type SessionMeta } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { startServer } from "./helpers/server.js";

/**
 * Sessions damaged on disk behind the server's store (written by another store on its directory,
 * then torn or hand-edited): GET /api/sessions lists each as damaged and DELETE removes it.
 */

describe("damaged sessions over the API", () => {
  it("a torn session.json, a torn entries.jsonl line and a newer format version are listed as damaged and deleted", async () => {
    const server = await startServer();
    const dir = join(dirname(server.cwd), "store");
    const other = await openStore(dir);
    for (const id of ["torn", "corrupt", "newer", "fine"]) {
      await other.createSession({ id, title: `session ${id}` });
      await other.appendMessage(id, { role: "user", content: `hello ${id}` });
    }
    await other.close();
    const file = (id: string, name: string) => join(dir, "sessions", id, name);
    writeFileSync(file("torn", "session.json"), '{"version": 1, "id": "to');
    writeFileSync(file("corrupt", "entries.jsonl"), `${readFileSync(file("corrupt", "entries.jsonl"), "utf8")}{"type": "mess\n`);
    const meta = JSON.parse(readFileSync(file("newer", "session.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(file("newer", "session.json"), JSON.stringify({ ...meta, version: 99 }));

    const listed = (await (await server.api("/api/sessions")).json()) as { sessions: SessionMeta[] };
    const damaged = new Map(listed.sessions.map((m) => [m.id, m.damaged]));
    expect([...damaged.keys()].sort()).toEqual(["corrupt", "fine", "newer", "torn"]);
    expect(damaged.get("torn")).toContain("not valid JSON");
    expect(damaged.get("corrupt")).toContain("entries.jsonl");
    expect(damaged.get("newer")).toContain("newer Arbor");
    expect(damaged.get("fine")).toBeUndefined();

    for (const id of ["torn", "corrupt", "newer"]) {
      expect((await server.api(`/api/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    }
    const after = (await (await server.api("/api/sessions")).json()) as { sessions: SessionMeta[] };
    expect(after.sessions.map((m) => m.id)).toEqual(["fine"]);
  });
});

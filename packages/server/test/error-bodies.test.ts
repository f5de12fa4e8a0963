import { appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ArborError, openStore } from "@arbor/core";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { toApiError } from "../src/errors.js";
import { errorOf, startServer } from "./helpers/server.js";

/** A session written by another store on the server's directory, then damaged on disk. */
async function damagedSession(cwd: string, file: "entries.jsonl" | "events.jsonl"): Promise<{ id: string; root: string }> {
  const root = dirname(cwd);
  const dir = join(root, "store");
  const other = await openStore(dir);
  const { id } = await other.createSession();
  await other.appendMessage(id, { role: "user", content: "hello" });
  await other.appendEvents(id, [{ type: "trace_completed", data: { status: "done" } }]);
  await other.close();
  appendFileSync(join(dir, "sessions", id, file), "this line is not JSON\n");
  return { id, root };
}

describe("server-side failures (5xx)", () => {
  it("answer a typed code and a message without file paths; the whole error goes to onError", async () => {
    const failures: unknown[] = [];
    const server = await startServer({ server: { onError: (err) => failures.push(err) } });
    const { id, root } = await damagedSession(server.cwd, "entries.jsonl");
    const res = await server.api(`/api/sessions/${id}`);
    const body = await errorOf(res);
    expect(body).toMatchObject({ status: 500, code: "corrupt_session" });
    expect(body.message).not.toContain(root);
    expect(body.message).not.toMatch(/(^|[\s'"(])\/\w/);
    // Still a message someone can act on: which file, which line, what to do.
    expect(body.message).toContain("…/entries.jsonl:2:");
    expect(body.message).toContain("fix or remove that line");
    expect(failures).toHaveLength(1);
    expect(String((failures[0] as Error).message)).toContain(join(root, "store", "sessions", id, "entries.jsonl"));
  });

  it("a watch whose event log is damaged closes with a reason without paths", async () => {
    const server = await startServer();
    const { id, root } = await damagedSession(server.cwd, "events.jsonl");
    const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/api/traces/${id}/watch?since_event_id=1`);
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      ws.on("close", (code, reason) => resolve({ code, reason: String(reason) }));
      ws.on("error", reject);
    });
    expect(closed.code).toBe(1011);
    expect(closed.reason).toContain("events.jsonl");
    expect(closed.reason).not.toContain(root);
  });

  it("an unexpected error (not an ArborError) is internal_error with a fixed message: no paths, data or stack", () => {
    const err = new Error("EACCES: permission denied, open '/srv/secret/key.pem'\n    at Object.openSync (node:fs:573:18)");
    expect(toApiError(err)).toEqual({
      status: 500,
      body: { error: { code: "internal_error", message: expect.stringMatching(/^Internal error: /) } },
    });
    expect(JSON.stringify(toApiError(err))).not.toMatch(/secret|openSync|node:fs/);
    // Paths are cut to their last component; URLs, ports and client errors (4xx) are left alone.
    const io = new ArborError("io_error", "Cannot read /home/u/.arbor/sessions/s1/entries.jsonl: EIO (C:\\Users\\u\\x.db)");
    expect(toApiError(io).body.error.message).toBe("Cannot read …/entries.jsonl: EIO (…/x.db)");
    const sql = new ArborError("io_error", "The postgres store failed to connect: postgres://db.example:5432/arbor refused.");
    expect(toApiError(sql).body.error.message).toBe(sql.message);
    const input = new ArborError("invalid_input", "No file /tmp/given.txt.");
    expect(toApiError(input)).toEqual({ status: 400, body: { error: { code: "invalid_input", message: input.message } } });
  });
});

describe("listening on an IPv4-mapped IPv6 address", () => {
  it("prints a URL that the server then answers, and accepts the Host a client sends for the mapped form", async () => {
    const server = await startServer();
    const { createServer } = await import("../src/index.js");
    const mapped = await createServer({ runtime: server.runtime }).listen({
      host: "::ffff:127.0.0.1",
      port: 0,
    });
    try {
      expect(mapped.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${mapped.url}/api/sessions`)).status).toBe(200);
      // fetch sends Host: [::ffff:7f00:1]:port for this spelling.
      expect((await fetch(`http://[::ffff:127.0.0.1]:${mapped.port}/api/sessions`)).status).toBe(200);
    } finally {
      await mapped.close();
    }
  });
});

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";
import { expectCode } from "./conformance/sessions-suite.js";
import { fileStoreEach } from "./helpers/file-store-each.js";

const t = fileStoreEach("arbor-recovery-");
const entriesFile = (id: string) => join(t.dir, "sessions", id, "entries.jsonl");
const metaFile = (id: string) => join(t.dir, "sessions", id, "session.json");

async function sessionWith(n: number) {
  const { id } = await t.store.createSession();
  for (let i = 0; i < n; i++) await t.store.appendMessage(id, { role: "user", content: `m${i}` });
  return id;
}

describe("file store crash safety", () => {
  it("drops a torn last line, keeps it aside, and appends cleanly after it", async () => {
    const id = await sessionWith(5);
    const entries = await t.store.listEntries(id);
    await t.store.close();
    truncateSync(entriesFile(id), statSync(entriesFile(id)).size - 7);
    await t.openAgain();
    expect(await t.store.listEntries(id)).toEqual(entries.slice(0, 4));
    expect((await t.store.getSession(id))?.leafEntryId).toBe(entries[3]?.id);
    const next = await t.store.appendMessage(id, { role: "user", content: "after crash" });
    expect(next.parentId).toBe(entries[3]?.id);
    const torn = readdirSync(join(t.dir, "sessions", id)).filter((f) => f.startsWith("entries.jsonl.torn-"));
    expect(torn).toHaveLength(1);
    expect(readFileSync(join(t.dir, "sessions", id, torn[0] as string), "utf8")).toBe(
      `${JSON.stringify(entries[4])}`.slice(0, -6),
    );
    await expect((await t.reopen()).listEntries(id)).resolves.toEqual([...entries.slice(0, 4), next]);
  });

  it("drops an unfinished batch as a whole", async () => {
    const id = await sessionWith(1);
    await t.store.appendEntries(id, [
      { type: "custom", customType: "a" },
      { type: "custom", customType: "b" },
    ]);
    await t.store.close();
    const lines = readFileSync(entriesFile(id), "utf8").split("\n");
    writeFileSync(entriesFile(id), `${lines.slice(0, -2).join("\n")}\n`);
    await t.openAgain();
    expect(await t.store.listEntries(id)).toHaveLength(1);
    await t.store.appendEntries(id, [
      { type: "custom", customType: "c" },
      { type: "custom", customType: "d" },
    ]);
    expect((await (await t.reopen()).listEntries(id)).map((e) => e.type === "custom" && e.customType)).toEqual([false, "c", "d"]);
  });

  for (const durability of ["process", "fsync"] as const) {
    it(`keeps every returned append after kill -9 (${durability})`, async () => {
      const { id } = await t.store.createSession();
      await t.store.close();
      const script = fileURLToPath(new URL("./fixtures/append-forever.mjs", import.meta.url));
      const child = spawn(process.execPath, [script, t.dir, id, durability], { stdio: ["ignore", "pipe", "pipe"] });
      const acknowledged: string[] = [];
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      for await (const line of createInterface({ input: child.stdout })) {
        acknowledged.push(line);
        if (acknowledged.length === 150) child.kill("SIGKILL");
      }
      expect(await exited, stderr).toBe("SIGKILL");
      await t.openAgain();
      const entries = await t.store.listEntries(id);
      const ids = new Set(entries.map((e) => e.id));
      for (const ack of acknowledged) expect(ids.has(ack)).toBe(true);
      expect(entries.map((e) => e.parentId)).toEqual([null, ...entries.slice(0, -1).map((e) => e.id)]);
      const next = await t.store.appendMessage(id, { role: "user", content: "resumed" });
      expect(next.parentId).toBe(entries.at(-1)?.id);
      expect(await (await t.reopen()).listEntries(id)).toHaveLength(entries.length + 1);
    });
  }
});

describe("file store bad files", () => {
  async function corrupt(id: string, edit: (lines: string[]) => string[]) {
    await t.store.close();
    const lines = readFileSync(entriesFile(id), "utf8").split("\n").slice(0, -1);
    writeFileSync(entriesFile(id), `${edit(lines).join("\n")}\n`);
    await t.openAgain();
    return readFileSync(entriesFile(id));
  }

  const cases: Array<[string, (lines: string[]) => string[], string, RegExp]> = [
    [
      "a malformed line",
      (l) => [l[0] as string, "{not json", ...l.slice(1)],
      "corrupt_session",
      /entries\.jsonl:2: not valid JSON/,
    ],
    [
      "a parent that does not exist",
      (l) => [...l, JSON.stringify({ ...JSON.parse(l[0] as string), id: "zz1", parentId: "ghost" })],
      "corrupt_session",
      /:4: .*ghost/,
    ],
    ["a duplicate id", (l) => [...l, l[1] as string], "corrupt_session", /:4: duplicate entry id/],
    [
      "a self-parent cycle",
      (l) => [...l, JSON.stringify({ ...JSON.parse(l[0] as string), id: "cyc", parentId: "cyc" })],
      "corrupt_session",
      /:4: .*cyc/,
    ],
    [
      "an entry type from a newer version",
      (l) => [...l, JSON.stringify({ type: "hologram", id: "h1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" })],
      "unknown_entry_type",
      /:4: unknown entry type "hologram"/,
    ],
    [
      "an invalid entry",
      (l) => [...l, JSON.stringify({ ...JSON.parse(l[0] as string), id: "bad1", message: { role: "user", content: 5 } })],
      "corrupt_session",
      /:4: invalid message entry/,
    ],
  ];
  for (const [name, edit, code, message] of cases) {
    it(`refuses ${name} with a typed error naming the line, and never writes over the file`, async () => {
      const id = await sessionWith(3);
      const bytes = await corrupt(id, edit);
      const err = await expectCode(t.store.getSnapshot(id), code);
      expect(err.message).toMatch(message);
      await expectCode(t.store.appendMessage(id, { role: "user", content: "x" }), code);
      await expectCode(t.store.switchLeaf(id, "zz1"), code);
      expect(readFileSync(entriesFile(id))).toEqual(bytes);
      // The rest of the store stays usable, and the broken session still lists and deletes.
      const other = await sessionWith(1);
      expect((await t.store.listSessions()).sessions.map((m) => m.id).sort()).toEqual([id, other].sort());
      await t.store.deleteSession(id);
      expect(existsSync(join(t.dir, "sessions", id))).toBe(false);
    });
  }

  it("refuses an unreadable session.json without rewriting it", async () => {
    const id = await sessionWith(2);
    await t.store.close();
    writeFileSync(metaFile(id), "{ broken");
    await t.openAgain();
    await expectCode(t.store.getSession(id), "corrupt_session");
    await expectCode(t.store.updateSession(id, { title: "x" }), "corrupt_session");
    await expectCode(t.store.appendMessage(id, { role: "user", content: "x" }), "corrupt_session");
    expect(readFileSync(metaFile(id), "utf8")).toBe("{ broken");
  });

  it("refuses a session written by a newer format version", async () => {
    const id = await sessionWith(1);
    await t.store.close();
    const meta = JSON.parse(readFileSync(metaFile(id), "utf8"));
    writeFileSync(metaFile(id), JSON.stringify({ ...meta, version: 99 }));
    await t.openAgain();
    const err = await expectCode(t.store.getSnapshot(id), "unsupported_version");
    expect(err.message).toMatch(/newer Arbor/);
  });

  it("migrates a version-0 session on read and continues it", async () => {
    const id = "legacy-1";
    mkdirSync(join(t.dir, "sessions", id), { recursive: true });
    writeFileSync(metaFile(id), JSON.stringify({ id, createdAt: "2025-01-01T00:00:00.000Z", cwd: "/old" }));
    const old = [
      {
        type: "message",
        id: "a1",
        parentId: null,
        timestamp: "2025-01-01T00:00:01.000Z",
        message: { role: "user", content: "plain text" },
      },
      {
        type: "message",
        id: "a2",
        parentId: "a1",
        timestamp: "2025-01-01T00:00:02.000Z",
        message: { role: "assistant", content: "reply" },
      },
    ];
    writeFileSync(entriesFile(id), old.map((e) => `${JSON.stringify(e)}\n`).join(""));
    const snap = await t.store.getSnapshot(id);
    expect(snap.session).toMatchObject({
      version: 1,
      mode: "agent",
      agentType: "main",
      leafEntryId: "a2",
      totalMessages: 2,
      cwd: "/old",
    });
    expect(snap.runtimeContext.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "plain text" }] });
    await t.store.appendMessage(id, { role: "user", content: "new" });
    expect((await (await t.reopen()).listEntries(id)).map((e) => e.id).slice(0, 2)).toEqual(["a1", "a2"]);
  });

  it("recomputes leaf and totals when session.json lags behind the entries", async () => {
    const id = await sessionWith(2);
    await t.store.close();
    const staleMeta = readFileSync(metaFile(id), "utf8");
    await t.openAgain();
    const e = await t.store.appendMessage(id, { role: "user", content: "late", cost: 1.5 });
    await t.store.close();
    writeFileSync(metaFile(id), staleMeta); // as if the process died before writing meta back
    await t.openAgain();
    expect(await t.store.getSession(id)).toMatchObject({ leafEntryId: e.id, totalMessages: 3, totalCost: 1.5 });
    expect((await t.store.listSessions()).sessions[0]).toMatchObject({ leafEntryId: e.id, totalMessages: 3 });
  });
});

describe("opening the store beside another process's create", () => {
  it("leaves a fresh .tmp- directory alone (another process is building its session there) and sweeps an old one", async () => {
    const root = join(t.dir, "sessions");
    const live = join(root, ".tmp-live");
    const dead = join(root, ".tmp-dead");
    const trash = join(root, ".trash-dead");
    for (const d of [live, dead, trash]) {
      mkdirSync(d);
      writeFileSync(join(d, "session.json"), "{}");
    }
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(dead, old, old);
    utimesSync(trash, old, old);
    const second = await openStore(t.dir);
    await second.close();
    expect(existsSync(join(live, "session.json"))).toBe(true);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(trash)).toBe(false);
  });
});

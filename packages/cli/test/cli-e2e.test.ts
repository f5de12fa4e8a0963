import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionExport, SessionMeta, Snapshot } from "@arbor/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbor, type CliResult } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { createTestDatabase } from "./helpers/postgres.js";
import { type Seeded, seed, withStore } from "./helpers/seed.js";

/**
 * End to end: the built `arbor` binary, spawned, against real stores made by `openStore` in this
 * process. The store is closed before each spawn that writes, and reopened to check what it wrote.
 */

const STACK_TRACE = /\n\s+at /;

/** Entry ids in the order the tree view draws them: depth first, children in append order. */
function depthFirst(snapshot: Snapshot): string[] {
  const order: string[] = [];
  const stack = [...(snapshot.childrenByParentId[""] ?? [])].reverse();
  while (stack.length > 0) {
    const id = stack.pop() as string;
    order.push(id);
    stack.push(...[...(snapshot.childrenByParentId[id] ?? [])].reverse());
  }
  return order;
}

/** `[mark, shortId]` of each tree line. */
function parseTreeLine(line: string): { active: boolean; id: string } {
  const m = /([* ]) ([0-9a-f]{8}) /.exec(line);
  if (!m) throw new Error(`not a tree line: ${line}`);
  return { active: m[1] === "*", id: m[2] as string };
}

const BACKENDS = [
  { name: "file", spec: (dir: string) => join(dir, "store") },
  { name: "sqlite", spec: (dir: string) => `sqlite:${join(dir, "store.db")}` },
];

describe.each(BACKENDS)("arbor sessions on the $name store", ({ spec: makeSpec }) => {
  const e2e = setupCliE2e("arbor-cli-e2e-", { workspace: false });
  let spec: string;
  let seeded: Seeded;
  const cli = (...args: string[]) => e2e.arbor([...args, "--store", spec]);

  beforeAll(async () => {
    spec = makeSpec(e2e.dir);
    seeded = await withStore(spec, seed);
  });

  it("list --json pages through every session newest first", async () => {
    const all = await withStore(spec, (s) => s.listSessions({ limit: 1000 }));
    const full = await cli("sessions", "list", "--json", "--flat");
    expect(full.code).toBe(0);
    expect(JSON.parse(full.stdout)).toEqual({ sessions: all.sessions, nextCursor: null });
    // Without --flat: top-level sessions, each sub-trace under its parent.
    const nested = JSON.parse((await cli("sessions", "list", "--json")).stdout) as {
      sessions: { id: string }[];
      subTraces: Record<string, { id: string }[]>;
    };
    expect(nested.sessions.map((s) => s.id).sort()).toEqual([seeded.branchy.id, seeded.plain.id].sort());
    expect(nested.subTraces[seeded.branchy.id]?.map((s) => s.id)).toEqual([seeded.sub.id]);
    expect(all.sessions.map((s) => s.id).sort()).toEqual([seeded.branchy.id, seeded.sub.id, seeded.plain.id].sort());

    const paged: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const r = await cli("sessions", "list", "--json", "--flat", "--limit", "1", ...(cursor ? ["--cursor", cursor] : []));
      expect(r.code, r.stderr).toBe(0);
      const body = JSON.parse(r.stdout) as { sessions: { id: string }[]; nextCursor: string | null };
      paged.push(...body.sessions.map((s) => s.id));
      cursor = body.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(paged).toEqual(all.sessions.map((s) => s.id));
  });

  it("list prints a table, and the next cursor when more follow", async () => {
    const r = await cli("sessions", "list");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+CREATED \(UTC\)\s+UPDATED \(UTC\)\s+MESSAGES\s+TITLE$/);
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith(seeded.branchy.id))).toMatch(/ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d +10 +Branchy session$/);
    // The sub-trace is listed right under the session that started it.
    const subAt = lines.findIndex((l) => l.startsWith(`└ ${seeded.sub.id}`));
    expect(lines[subAt]).toMatch(/ 1 +\[explore\] look around$/);
    expect(lines[subAt - 1]?.startsWith(seeded.branchy.id)).toBe(true);

    const paged = await cli("sessions", "list", "--limit", "1");
    const pageLines = paged.stdout.trimEnd().split("\n");
    expect(pageLines).toHaveLength(4);
    expect(pageLines[3]).toMatch(/^next cursor: (\S+) {2}\(arbor sessions list --limit 1 --cursor \1\)$/);
  });

  it("show --json prints exactly the store's snapshot", async () => {
    const snapshot = await withStore(spec, (s) => s.getSnapshot(seeded.branchy.id));
    const r = await cli("sessions", "show", seeded.branchy.id, "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(snapshot);
  });

  it("show prints the active path, one line per entry", async () => {
    const snapshot = await withStore(spec, (s) => s.getSnapshot(seeded.branchy.id));
    const r = await cli("sessions", "show", seeded.branchy.id);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`session   ${seeded.branchy.id}`);
    expect(r.stdout).toContain("title     Branchy session");
    const pathLines = r.stdout.trimEnd().split("\n").slice(-snapshot.activePath.length);
    expect(pathLines.map((l) => l.trim().split(/\s+/)[0])).toEqual(snapshot.activePath.map((id) => id.slice(0, 8)));
    expect(pathLines.map((l) => l.trim().split(/\s+/)[1])).toEqual([
      "system",
      "thinking_level_change",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "model_change",
      "assistant",
    ]);
    expect(pathLines[2]).toMatch(/user\s+List the files \[start\]$/);
    expect(pathLines[3]).toMatch(/Let me look\. → tool call: ls$/);
  });

  it("tree draws every entry and branch, marks the active path and the leaf", async () => {
    const snapshot = await withStore(spec, (s) => s.getSnapshot(seeded.branchy.id));
    const r = await cli("sessions", "tree", seeded.branchy.id);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\u001b[");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(snapshot.entries.length);
    const parsed = lines.map(parseTreeLine);
    expect(parsed.map((p) => p.id)).toEqual(depthFirst(snapshot).map((id) => id.slice(0, 8)));
    expect(parsed.filter((p) => p.active).map((p) => p.id)).toEqual(snapshot.activePath.map((id) => id.slice(0, 8)));
    const leafLines = lines.filter((l) => l.endsWith(" ← leaf"));
    expect(leafLines).toHaveLength(1);
    expect(parseTreeLine(leafLines[0] as string).id).toBe(snapshot.session.leafEntryId?.slice(0, 8));
    expect(lines.some((l) => l.startsWith("├─ "))).toBe(true);
    expect(lines.some((l) => l.startsWith("└─ "))).toBe(true);
    expect(lines.some((l) => l.startsWith("│  "))).toBe(true);
    expect(lines.find((l) => l.includes("user: Open a.ts"))).toMatch(/^├─ {3}[0-9a-f]{8} user: Open a\.ts \[draft\]$/);
  });

  it("tree is bold on the active path when colour is forced, and --json gives the tree maps", async () => {
    const styled = await arbor(["sessions", "tree", seeded.branchy.id, "--store", spec], {
      home: e2e.home,
      env: { FORCE_COLOR: "1" },
    });
    expect(styled.code).toBe(0);
    for (const line of styled.stdout.trimEnd().split("\n")) {
      expect(line.includes("\u001b[1m"), line).toBe(line.replace(/\p{Cc}\[\d+m/gu, "").includes("* "));
    }
    const snapshot = await withStore(spec, (s) => s.getSnapshot(seeded.branchy.id));
    const r = await cli("sessions", "tree", seeded.branchy.id, "--json");
    expect(r.code).toBe(0);
    const { activePath, childrenByParentId, labelsByEntryId } = snapshot;
    expect(JSON.parse(r.stdout)).toEqual({ activePath, childrenByParentId, labelsByEntryId });
  });

  it("refuses bad input with exit 2, one line on stderr and no stack trace", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["sessions", "show", "no-such-session"],
        /^error: Session no-such-session does not exist\. Looked in the .*arbor sessions list/,
      ],
      [["sessions", "tree", "no-such-session"], /does not exist/],
      [["sessions", "rm", "no-such-session"], /does not exist/],
      [["sessions", "export", "no-such-session"], /does not exist/],
      [["sessions", "show", "../etc"], /^error: Session id "\.\.\/etc" is not valid/],
      [["sessions", "list", "--cursor", "garbage"], /cursor/],
      [["sessions", "frob"], /unknown command/],
      [["sessions", "show"], /missing <id>/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toMatch(STACK_TRACE);
      expect(r.stdout).toBe("");
    }
    const json = await cli("sessions", "show", "no-such-session", "--json");
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: "session_not_found", message: "Session no-such-session does not exist." },
    });
  }, 90_000);

  it("export then import refuses the existing id, and --new-id copies the session", async () => {
    const file = join(e2e.dir, "branchy.json");
    const exported = await cli("sessions", "export", seeded.branchy.id, "--out", file);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^Exported session \S+ \(\d+ entries\) to /);

    const again = await cli("sessions", "import", file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: .*--new-id/);

    const copy = await cli("sessions", "import", file, "--new-id");
    expect(copy.code, copy.stderr).toBe(0);
    const newId = copy.stdout.trim();
    expect(newId).not.toBe(seeded.branchy.id);
    await withStore(spec, async (s) => {
      expect(await s.listEntries(newId)).toEqual(await s.listEntries(seeded.branchy.id));
      await s.deleteSession(newId);
    });
  });

  it("rm deletes the session and its sub-sessions, and only them", async () => {
    const r = await cli("sessions", "rm", seeded.branchy.id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Deleted session ${seeded.branchy.id}.\n`);
    await withStore(spec, async (s) => {
      expect(await s.getSession(seeded.branchy.id)).toBeUndefined();
      expect(await s.getSession(seeded.sub.id)).toBeUndefined();
      expect(await s.getSession(seeded.plain.id)).toBeDefined();
    });
    const again = await cli("sessions", "rm", seeded.branchy.id, "--json");
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout).error.code).toBe("session_not_found");
  });
});

describe("store selection and input files", () => {
  const e2e = setupCliE2e("arbor-cli-e2e-", { workspace: false });

  it("defaults to the file store in ARBOR_HOME; ARBOR_STORE overrides it, --store overrides both", async () => {
    const home = join(e2e.dir, "home");
    const { plain: inHome } = await withStore(home, seed);
    const sqlite = `sqlite:${join(e2e.dir, "env.db")}`;
    const { plain: inSqlite } = await withStore(sqlite, seed);
    const ids = (stdout: string) => (JSON.parse(stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);

    const byHome = await arbor(["sessions", "list", "--json"], { home });
    expect(ids(byHome.stdout)).toContain(inHome.id);
    const byEnv = await arbor(["sessions", "list", "--json"], { home, env: { ARBOR_STORE: sqlite } });
    expect(ids(byEnv.stdout)).toContain(inSqlite.id);
    expect(ids(byEnv.stdout)).not.toContain(inHome.id);
    const byFlag = await arbor(["sessions", "list", "--json", "--store", home], { home, env: { ARBOR_STORE: sqlite } });
    expect(ids(byFlag.stdout)).toContain(inHome.id);
    const badEnv = await arbor(["sessions", "list"], { home, env: { ARBOR_STORE: "redis://localhost" } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toMatch(/^error: Unsupported store URL scheme/);
  });

  it("import rejects files that are missing, not JSON, not an export or not a valid tree, and writes nothing", async () => {
    const store = join(e2e.dir, "imports");
    const { plain } = await withStore(store, seed);
    const good = JSON.parse((await arbor(["sessions", "export", plain.id, "--store", store], { home: e2e.dir })).stdout);
    const reordered = { ...good, session: { ...good.session, id: "reordered" }, entries: [...good.entries].reverse() };
    const files: [string, string, RegExp][] = [
      ["not-json.json", "{ nope", /is not JSON/],
      ["not-export.json", JSON.stringify({ hello: 1 }), /is not an Arbor session export/],
      [
        "bad-entry.json",
        JSON.stringify({ ...good, entries: [{ type: "message" }] }),
        /^error: Invalid session export in .*entries\.0/,
      ],
      ["reordered.json", JSON.stringify(reordered), /does not come before it/],
    ];
    for (const [name, text, message] of files) {
      await writeFile(join(e2e.dir, name), text);
      const r = await arbor(["sessions", "import", join(e2e.dir, name), "--store", store], { home: e2e.dir });
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(STACK_TRACE);
    }
    const missing = await arbor(["sessions", "import", join(e2e.dir, "missing.json"), "--store", store], { home: e2e.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /Cannot read .*missing\.json: no such file or directory\. Give a file written by 'arbor sessions export'/,
    );
    const fromStdin = await arbor(["sessions", "import", "-", "--store", store], { home: e2e.dir, input: "[]" });
    expect(fromStdin.code).toBe(2);
    expect(fromStdin.stderr).toMatch(/^error: stdin is not an Arbor session export/);
    const sessions = await withStore(store, (s) => s.listSessions());
    expect(sessions.sessions).toHaveLength(3);
  });

  it("export --out into a missing directory is bad input", async () => {
    const store = join(e2e.dir, "imports");
    const [first] = (await withStore(store, (s) => s.listSessions())).sessions;
    const r = await arbor(["sessions", "export", first?.id ?? "", "--store", store, "--out", join(e2e.dir, "nope", "x.json")], {
      home: e2e.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: Cannot write .*x\.json: no such file or directory\. Choose an --out path/);
  });

  it("draws the tree of a 10,000-entry session quickly", async () => {
    const store = join(e2e.dir, "big");
    const id = await withStore(store, async (s) => {
      const meta = await s.createSession({ title: "big" });
      const inputs = Array.from({ length: 10_000 }, (_, i) => ({
        type: "message" as const,
        message: {
          role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
          content: [{ type: "text" as const, text: `message ${i}` }],
        },
      }));
      const entries = await s.appendEntries(meta.id, inputs);
      // A branch off the middle, so the drawing is not one straight line.
      await s.appendMessage(meta.id, { role: "user", content: "a retry" }, { parentId: entries[5000]?.id ?? null });
      await s.switchLeaf(meta.id, entries[9999]?.id ?? "");
      return meta.id;
    });
    const r = await arbor(["sessions", "tree", id, "--store", store], { home: e2e.dir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(10_001);
    expect(lines.filter((l) => l.includes("* "))).toHaveLength(10_000);
    expect(lines.at(-1)).toMatch(/^└─ {3}[0-9a-f]{8} user: a retry$/);
    expect(r.ms).toBeLessThan(10_000);
  });
});

describe("export/import round trip: file → postgres → sqlite → file", () => {
  const e2e = setupCliE2e("arbor-cli-e2e-", { workspace: false });
  let db: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  const withoutProvider = ({ provider: _, ...rest }: SessionMeta) => rest;

  it("carries every entry and the session meta across all three backends", async () => {
    const postgres = (db as { url: string }).url;
    const fileA = join(e2e.dir, "file-a");
    const sqlite = `sqlite:${join(e2e.dir, "round-trip.db")}`;
    const fileB = join(e2e.dir, "file-b");
    const { branchy } = await withStore(fileA, seed);
    const id = branchy.id;
    const original = await withStore(fileA, (s) => s.exportSession(id));
    const originalSnapshot = await withStore(fileA, (s) => s.getSnapshot(id));
    const ok = (r: CliResult) => {
      expect(r.code, r.stderr).toBe(0);
      return r;
    };

    // file → postgres, through a file.
    const fromFile = join(e2e.dir, "from-file.json");
    ok(await arbor(["sessions", "export", id, "--store", fileA, "--out", fromFile], { home: e2e.dir }));
    const intoPostgres = ok(await arbor(["sessions", "import", fromFile, "--store", postgres, "--json"], { home: e2e.dir }));
    expect(JSON.parse(intoPostgres.stdout)).toMatchObject({ sessionId: id, session: { id, provider: "postgres" } });

    // postgres → sqlite, through a pipe.
    const fromPostgres = ok(await arbor(["sessions", "export", id, "--store", postgres], { home: e2e.dir }));
    const intoSqlite = ok(
      await arbor(["sessions", "import", "-", "--store", sqlite, "--create"], { home: e2e.dir, input: fromPostgres.stdout }),
    );
    expect(intoSqlite.stdout).toBe(`${id}\n`);

    // sqlite → another file store.
    const fromSqlite = join(e2e.dir, "from-sqlite.json");
    ok(await arbor(["sessions", "export", id, "--store", sqlite, "--out", fromSqlite, "--json"], { home: e2e.dir }));
    ok(await arbor(["sessions", "import", fromSqlite, "--store", fileB, "--create"], { home: e2e.dir }));

    const stages: [string, SessionExport][] = [
      ["postgres", JSON.parse(fromPostgres.stdout)],
      ["sqlite", JSON.parse(await readFile(fromSqlite, "utf8"))],
      ["file", await withStore(fileB, (s) => s.exportSession(id))],
    ];
    for (const [provider, exported] of stages) {
      expect(exported.session.provider, provider).toBe(provider);
      expect(exported.entries, provider).toEqual(original.entries);
      expect(withoutProvider(exported.session), provider).toEqual(withoutProvider(original.session));
    }
    const finalSnapshot = await withStore(fileB, (s) => s.getSnapshot(id));
    expect({ ...finalSnapshot, session: withoutProvider(finalSnapshot.session) }).toEqual({
      ...originalSnapshot,
      session: withoutProvider(originalSnapshot.session),
    });
  }, 90_000);
});

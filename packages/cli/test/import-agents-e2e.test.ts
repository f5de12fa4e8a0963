import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionExport } from "@arbor/core";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { AtifTrajectorySchema } from "../../core/src/interop/atif/schema.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { withStore } from "./helpers/seed.js";

/**
 * End to end: `arbor sessions import --from …` on the real session files of other agents, then
 * `show`, `tree` and `export` of what it wrote, through the CLI run in this process.
 */

const FIXTURES = fileURLToPath(new URL("../../core/test/fixtures/sessions/", import.meta.url));
const STACK_TRACE = /\n\s+at /;

interface Report {
  imported: Array<{ sessionId: string; entries: number; subTraces: number }>;
  alreadyImported: string[];
  skipped: Record<string, number>;
  notImported: Array<{ path: string; reason: string }>;
}

const e2e = setupCliE2e("arbor-import-e2e-", { workspace: false });

const storeCount = async (store: string) => (await withStore(store, (s) => s.listSessions({ limit: 1000 }))).sessions.length;

// Each case runs the CLI several times, importing real sessions: given room on a loaded machine.
describe("arbor sessions import --from", { timeout: 180_000 }, () => {
  it("imports every Claude Code session with its sub-agents, and a second import writes nothing", async () => {
    const store = join(e2e.dir, "claude");
    const args = ["sessions", "import", "--from", "claude-code", join(FIXTURES, "claude-code"), "--store", store, "--create"];
    const first = await e2e.cli([...args, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Report;
    expect(report.imported).toHaveLength(6);
    expect(report.imported.reduce((n, s) => n + s.subTraces, 0)).toBe(6);
    expect(report.notImported).toEqual([]);
    expect(report.skipped['progress line "bash_progress" (live output shown while a tool ran)']).toBe(57);
    expect(await storeCount(store)).toBe(12);

    const again = await e2e.cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Imported 0 sessions from claude-code .*; 6 already imported\./);
    expect(await storeCount(store)).toBe(12);
  });

  it("show and tree draw an imported session with its sub-traces and active path", async () => {
    const store = join(e2e.dir, "claude");
    const id = "claude-code-e9fb405b-169f-40eb-9396-7e75076f045d";
    const show = await e2e.cli(["sessions", "show", id, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`${id}@delegate-20260114192013-001`);
    expect(show.stdout).toContain("Metrics Calculations Verification");
    const tree = await e2e.cli(["sessions", "tree", id, "--store", store]);
    expect(tree.code, tree.stderr).toBe(0);
    const entries = (await withStore(store, (s) => s.listEntries(id))).length;
    expect(tree.stdout.trimEnd().split("\n").length).toBeGreaterThanOrEqual(entries);
    expect(tree.stdout).toContain("← leaf");
    // ATIF v1.7 embeds the sub-agent's trajectory the store holds, referenced by its trajectory_id.
    const atif = await e2e.cli(["sessions", "export", id, "--format", "atif", "--store", store]);
    expect(atif.code, atif.stderr).toBe(0);
    const trajectory = AtifTrajectorySchema.parse(JSON.parse(atif.stdout));
    const sub = `${id}@delegate-20260114192013-001`;
    expect(trajectory.subagent_trajectories?.map((t) => t.trajectory_id)).toEqual([sub]);
    const refs = trajectory.steps.flatMap((st) => st.observation?.results ?? []).flatMap((r) => r.subagent_trajectory_ref ?? []);
    expect(refs).toContainEqual({ trajectory_id: sub, session_id: sub });
    const json = JSON.parse((await e2e.cli(["sessions", "tree", id, "--json", "--store", store])).stdout) as {
      activePath: string[];
    };
    expect(json.activePath.length).toBeGreaterThan(10);
    // Every prefix of the session's id is one of its sub-traces' too: it names the session, not an ambiguity.
    const byPrefix = await e2e.cli(["sessions", "show", "claude-code-e9fb", "--store", store]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toMatch(new RegExp(`^session +${id}$`, "m"));
  });

  it("pi sessions export back to pi line for line, and as ATIF", async () => {
    const store = join(e2e.dir, "pi");
    const r = await e2e.cli(
      ["sessions", "import", "--from", "pi", join(FIXTURES, "pi"), "--store", store, "--create", "--json"],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Report).imported.map((s) => s.entries).sort((a, b) => a - b)).toEqual([5, 11, 1018]);

    const source = await readFile(join(FIXTURES, "pi", "v3-real-world-trimmed.jsonl"), "utf8");
    const pi = await e2e.cli(["sessions", "export", "pi-real-world-uuid", "--format", "pi", "--store", store]);
    expect(pi.code, pi.stderr).toBe(0);
    const canon = (text: string) =>
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const v = JSON.parse(l) as Record<string, unknown>;
          return JSON.stringify({ ...v, timestamp: new Date(String(v.timestamp)).toISOString() }, Object.keys(v).sort());
        });
    expect(canon(pi.stdout)).toEqual(canon(source));

    const out = join(e2e.dir, "trajectory.json");
    const atif = await e2e.cli(
      ["sessions", "export", "pi-real-world-uuid", "--format", "atif", "--out", out, "--store", store],
      {},
    );
    expect(atif.code, atif.stderr).toBe(0);
    expect(atif.stdout).toMatch(/^Exported session pi-real-world-uuid \(\d+ steps, atif\) to /);
    const t = AtifTrajectorySchema.parse(JSON.parse(await readFile(out, "utf8")));
    expect(t.steps.filter((s) => s.source === "agent").flatMap((s) => s.tool_calls ?? [])).toHaveLength(2);

    const branch = await e2e.cli(["sessions", "export", "pi-real-world-uuid", "--leaf", "4841084c", "--store", store]);
    expect(branch.code, branch.stderr).toBe(0);
    const doc = JSON.parse(branch.stdout) as SessionExport;
    expect(doc.entries.map((e) => e.id)).toEqual(["38d0dce4", "98e5e6ae", "a38e1b57", "6fec25d2", "4d139ddb", "4841084c"]);
    expect(doc.session.leafEntryId).toBe("4841084c");
    const bad = await e2e.cli(["sessions", "export", "pi-real-world-uuid", "--format", "html", "--store", store]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be one of arbor, pi, atif/);
  });

  it("with no path, reads the agent's own location", async () => {
    const fakeHome = join(e2e.dir, "user-home");
    const sessions = join(fakeHome, ".codex", "sessions", "2026", "05", "11");
    await mkdir(sessions, { recursive: true });
    await cp(join(FIXTURES, "codex"), sessions, { recursive: true });
    const store = join(e2e.dir, "codex");
    const r = await e2e.cli(["sessions", "import", "--from", "codex", "--store", store, "--create"], {
      env: { HOME: fakeHome },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Imported 1 session from codex \(.*\.codex\/sessions\)/);
    expect(r.stdout).toMatch(/event_msg "exec_command_end"/);
    const viaEnv = await e2e.cli(["sessions", "import", "--from", "codex", "--store", store, "--create"], {
      env: { CODEX_HOME: join(fakeHome, ".codex") },
    });
    expect(viaEnv.stdout).toMatch(/Imported 0 sessions .*; 1 already imported/);
  });

  it("reads an OpenCode database, or a directory holding one", async () => {
    const dbDir = join(e2e.dir, "opencode");
    await mkdir(dbDir, { recursive: true });
    const db = new Database(join(dbDir, "opencode.db"));
    // The dump holds only the two session tables, not the project table they reference.
    db.pragma("foreign_keys = OFF");
    db.exec(await readFile(join(FIXTURES, "opencode", "schema.sql"), "utf8"));
    for (const line of (await readFile(join(FIXTURES, "opencode", "question.rows.jsonl"), "utf8")).split("\n").filter(Boolean)) {
      const { table, row } = JSON.parse(line) as { table: string; row: Record<string, unknown> };
      const values = Object.fromEntries(
        Object.entries(row).map(([k, v]) => [k, v !== null && typeof v === "object" ? JSON.stringify(v) : v]),
      );
      const cols = Object.keys(values);
      db.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`).run(values);
    }
    db.close();
    const store = join(e2e.dir, "oc");
    const r = await e2e.cli(["sessions", "import", "--from", "opencode", dbDir, "--store", store, "--create", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Report).imported).toEqual([
      expect.objectContaining({ sessionId: "opencode-ses_f34687c4effe4c1OUSq8A7KEeN", entries: 5, subTraces: 0 }),
    ]);
    const show = await e2e.cli(["sessions", "show", "opencode-ses_f34687c4effe4c1OUSq8A7KEeN", "--store", store]);
    expect(show.stdout).toContain("Green");
    // OpenCode writes a cost of 0 for a model it has no price for: that is an unknown price, not $0.
    expect(show.stdout).toMatch(/^usage +\d+ tokens, price unknown$/m);
    expect(show.stdout).not.toContain("$0.0000");
    // OpenCode's ids share a time prefix, and a tool result's id starts with its message's: each line
    // still shows an id of its own, which names that one entry.
    const shown = show.stdout
      .slice(show.stdout.indexOf("Active path"))
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.trim().split(/\s+/)[0]!);
    expect(shown).toHaveLength(5);
    expect(new Set(shown).size).toBe(5);
    for (const short of shown) {
      const leaf = await e2e.cli(["sessions", "leaf", "opencode-ses_f", short, "--store", store, "--json"]);
      expect(leaf.code, leaf.stderr).toBe(0);
      expect((JSON.parse(leaf.stdout) as { leafId: string }).leafId.startsWith(short)).toBe(true);
    }
  });

  it("bad input is a clear error that writes nothing", async () => {
    const store = join(e2e.dir, "bad");
    const cases: Array<[string[], RegExp]> = [
      [
        ["--from", "pi", join(FIXTURES, "codex", "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")],
        /is not a pi session/,
      ],
      [["--from", "codex", join(FIXTURES, "pi", "v3-smoke-redacted.jsonl")], /is not a Codex rollout/],
      [["--from", "claude-code", join(FIXTURES, "opencode", "question.rows.jsonl")], /is not a Claude Code transcript/],
      [
        ["--from", "claude-code", join(FIXTURES, "claude-code", "v2.0.64-warmup-agents", "agent-50243ee8.jsonl")],
        /is a Claude Code sub-agent file/,
      ],
      [["--from", "opencode", join(FIXTURES, "opencode", "schema.sql")], /as an OpenCode database/],
      [["--from", "pi", join(e2e.dir, "nowhere")], /Cannot read .*nowhere: no such file or directory/],
      [["--from", "gemini", "x"], /--from must be one of pi, claude-code, codex, opencode; got 'gemini'/],
      [["--from", "pi", "--new-id", "x"], /--new-id does not apply to --from/],
      [["--from", "codex", join(FIXTURES, "pi")], /Nothing at .* is a codex session/],
    ];
    for (const [args, message] of cases) {
      const r = await e2e.cli(["sessions", "import", ...args, "--store", store, "--create"]);
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(STACK_TRACE);
    }
    expect(await storeCount(store)).toBe(0);
  });
});

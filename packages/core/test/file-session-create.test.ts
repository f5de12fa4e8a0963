import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CreatePace, type CreateWhere } from "../src/store/file/create-pace.js";
import { SessionDirs } from "../src/store/file/session-dir.js";
import { newSessionMeta } from "../src/store/session-meta.js";
import { expectCode } from "./conformance/sessions-suite.js";

// A file store makes a new session's files on the event loop while that is quick, and through the
// thread pool after two slow creations in a row (see create-pace.ts). Both ways must make the same
// session: these tests pin the policy and run a creation each way.

describe("CreatePace", () => {
  const settings = { slowMs: 2, holdMs: 1_000 };

  it("stays on the loop while creations are quick, and after a single slow one", () => {
    const pace = new CreatePace(settings);
    expect(pace.where(0)).toBe("loop");
    pace.tookOnLoop(0.1, 10);
    pace.tookOnLoop(5, 20);
    expect(pace.where(21)).toBe("loop");
    pace.tookOnLoop(0.1, 30);
    pace.tookOnLoop(5, 40);
    expect(pace.where(41)).toBe("loop");
  });

  it("moves off the loop for holdMs after two slow creations in a row, then tries the loop again", () => {
    const pace = new CreatePace(settings);
    pace.tookOnLoop(3, 100);
    pace.tookOnLoop(4, 200);
    expect(pace.where(201)).toBe("pool");
    expect(pace.where(1_199)).toBe("pool");
    expect(pace.where(1_200)).toBe("loop");
    // Back on the loop, one slow creation alone does not move it again.
    pace.tookOnLoop(3, 1_300);
    expect(pace.where(1_301)).toBe("loop");
  });
});

/** A pace that always answers `where`, for running one way of creating. */
function fixedPace(where: CreateWhere): CreatePace {
  const pace = new CreatePace();
  pace.where = () => where;
  return pace;
}

describe("SessionDirs.create, on the loop and in the thread pool", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "arbor-session-create-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const where of ["loop", "pool"] as const) {
    it(`${where}: the session appears whole, and a second creation of its id is refused`, async () => {
      const root = join(dir, where);
      const dirs = new SessionDirs(root, false, fixedPace(where));
      dirs.init();
      const meta = newSessionMeta({ title: "made" }, "file", `s-${where}`, new Date().toISOString());
      await dirs.create(meta, '{"x":1}\n');
      expect(readdirSync(join(root, meta.id)).sort()).toEqual(["entries.jsonl", "events.jsonl", "session.json"]);
      expect(readFileSync(join(root, meta.id, "entries.jsonl"), "utf8")).toBe('{"x":1}\n');
      expect(readFileSync(join(root, meta.id, "events.jsonl"), "utf8")).toBe("");
      expect(JSON.parse(readFileSync(join(root, meta.id, "session.json"), "utf8"))).toMatchObject({
        id: meta.id,
        title: "made",
        entriesBytes: 8,
      });
      await expectCode(dirs.create(meta, ""), "session_exists");
      // The refused creation left nothing aside.
      expect(readdirSync(root).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
    });
  }

  /** Session dirs under `name` whose pace always says "loop", with the times of the creations made there. */
  const onLoopPace = (name: string, fsync: boolean) => {
    const root = join(dir, name);
    const pace = fixedPace("loop");
    const timed: number[] = [];
    pace.tookOnLoop = (ms) => void timed.push(ms);
    const dirs = new SessionDirs(root, fsync, pace);
    dirs.init();
    return { root, dirs, timed };
  };

  it("a session made with large entries (an import) is written in the thread pool, whatever the pace", async () => {
    const { root, dirs, timed } = onLoopPace("large", false);
    const now = new Date().toISOString();
    await dirs.create(newSessionMeta({}, "file", "small", now), '{"x":1}\n');
    expect(timed).toHaveLength(1);
    const large = `${JSON.stringify({ x: "y".repeat(70_000) })}\n`;
    await dirs.create(newSessionMeta({}, "file", "large", now), large);
    expect(timed).toHaveLength(1);
    expect(readFileSync(join(root, "large", "entries.jsonl"), "utf8")).toBe(large);
  });

  it("a store that fsyncs makes a session's files in the thread pool, whatever the pace", async () => {
    const { root, dirs, timed } = onLoopPace("fsync", true);
    await dirs.create(newSessionMeta({}, "file", "synced", new Date().toISOString()), '{"x":1}\n');
    expect(timed).toEqual([]);
    expect(readdirSync(join(root, "synced")).sort()).toEqual(["entries.jsonl", "events.jsonl", "session.json"]);
  });
});

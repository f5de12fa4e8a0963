import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLE } from "../../../../scripts/bundle-core.mjs";
import { hasGit } from "../../../../test-setup/git.js";

/** The bundle's own files, by name (the test set-up makes the bundle current before any test runs). */
const files = () => readdirSync(BUNDLE).filter((name) => name.endsWith(".js"));

describe("core's bundle (what @arbor/core's entry points load)", () => {
  it("holds every file its code starts or imports by a path beside itself", () => {
    const named = new Set<string>();
    for (const file of files()) {
      const code = readFileSync(join(BUNDLE, file), "utf8");
      for (const [, name] of code.matchAll(/new URL\("\.\/([\w.-]+\.js)", import\.meta\.url\)/g)) named.add(name!);
      // The git runner's child imports its siblings by a name it puts together: `sibling("loose-objects")`.
      for (const [, name] of code.matchAll(/sibling\("([\w-]+)"\)/g)) named.add(`${name}.js`);
    }
    expect([...named].sort()).toEqual(
      ["git-runner-child.js", "loose-objects.js", "named-patch.js", "named-tree.js", "sqlite-checkpoint-worker.js"].sort(),
    );
    for (const name of named) expect(files()).toContain(name);
  });

  it("is ASCII text without doc comments, which every process would decode and scan at start", () => {
    // One non-ASCII character (a `…` in a message) made Node hold a whole chunk as UTF-16 text.
    // A message's characters are still there, as escapes: the bundle's runtime strings are the same.
    const code = new Map(files().map((file) => [file, readFileSync(join(BUNDLE, file), "utf8")]));
    const offending = [...code].filter(([, text]) => /[^\p{ASCII}]/u.test(text)).map(([file]) => file);
    expect(offending).toEqual([]);
    const withDocs = [...code].filter(([, text]) => /\/\*\*\s/.test(text)).map(([file]) => file);
    expect(withDocs).toEqual([]);
    expect(code.get("index.js")).toContain("\\u2026");
  });
});

describe.skipIf(!hasGit)("the git runner started from the bundle", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-bundle-"));
    await mkdir(join(dir, "ws"));
    await writeFile(join(dir, "ws", "a.ts"), "a\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("builds a step's tree and writes its patch in its child, starting no git", async () => {
    const core = await import(pathToFileURL(join(BUNDLE, "session.js")).href);
    const calls: string[] = [];
    const runner = new (class extends core.GitRunner {
      run(call: { args: string[] }) {
        calls.push(call.args[0]!);
        return super.run(call);
      }
    })();
    try {
      const snapshots = await core.openSnapshots({ home: join(dir, "home"), workspace: join(dir, "ws"), sessionId: "s", runner });
      await snapshots.track();
      // The first named snapshot asks git once whether trees may be built without it.
      await writeFile(join(dir, "ws", "a.ts"), "b\n");
      const before = await snapshots.track(["a.ts"]);
      calls.length = 0;
      await writeFile(join(dir, "ws", "a.ts"), "c\n");
      const after = await snapshots.track(["a.ts"]);
      const files: Array<{ path: string; diff: string }> = await snapshots.patch(before, after);
      expect(calls).toEqual([]);
      expect(files.map((f) => f.path)).toEqual(["a.ts"]);
      expect(files[0]!.diff).toContain("-b\n+c");
      // A child that could not start would have left the building to this process: it is running.
      expect(runner.pid).toBeGreaterThan(0);
    } finally {
      await runner.close();
    }
  });
});

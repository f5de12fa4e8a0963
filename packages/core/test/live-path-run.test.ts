import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedModel, text, usage } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EntryInput } from "../src/model/entry.js";
import { createRuntime } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { MemoryBlobStore } from "../src/tools/blob-store.js";

function user(t: string): EntryInput {
  return { type: "message", message: { role: "user", content: [{ type: "text", text: t }] } };
}
function assistant(t: string): EntryInput {
  return { type: "message", message: { role: "assistant", content: [{ type: "text", text: t }] } };
}

/** Counts the store calls a run makes; calls a store makes on itself are not counted. */
function counting(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(key), (calls.get(String(key)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe.each(["sqlite", "file"] as const)("a continued run on a compacted session (%s store)", (kind) => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "arbor-live-")));
    store = await openStore(kind === "file" ? { kind, dir: join(dir, "s") } : { kind, file: join(dir, "s.db") });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the live path, not the whole one, and the model sees the same conversation", async () => {
    const sid = (await store.createSession()).id;
    await store.appendEntries(sid, [user("first-task-words"), { type: "thinking_level_change", thinkingLevel: "high" }]);
    await store.appendEntries(sid, [assistant("early answer"), user("early question")]);
    const [kept] = await store.appendEntries(sid, [assistant("kept answer"), user("kept question")]);
    await store.appendCompaction(sid, { summary: "what happened early", firstKeptEntryId: kept!.id, tokensBefore: 10 });
    await store.appendEntry(sid, assistant("after the summary"));

    const model = scriptedModel([[text("Continuing."), usage({ inputTokens: 5, outputTokens: 1 })]]);
    const counted = counting(store);
    const cwd = join(dir, "ws");
    rmSync(cwd, { recursive: true, force: true });
    await import("node:fs/promises").then((fs) => fs.mkdir(cwd, { recursive: true }));
    const runtime = createRuntime({
      store: counted.store,
      model,
      tools: [],
      cwd,
      arborHome: join(dir, "home"),
      env: {},
      blobs: new MemoryBlobStore(),
    });
    try {
      const result = await runtime.runs.run({ sessionId: sid, prompt: "go on" }).result;
      expect(result.status).toBe("done");
    } finally {
      await runtime.close();
    }
    expect(counted.calls.get("getLivePath")).toBe(1);
    expect(counted.calls.get("getActivePath") ?? 0).toBe(0);
    expect(counted.calls.get("listEntries") ?? 0).toBe(0);
    const prompt = JSON.stringify(model.calls[0]!.prompt);
    for (const seen of ["what happened early", "kept answer", "kept question", "after the summary", "go on"]) {
      expect(prompt).toContain(seen);
    }
    for (const gone of ["early answer", "early question", "first-task-words"]) expect(prompt).not.toContain(gone);
    // The thinking level set before the compaction still holds: the run wrote no change of it.
    const path = await store.getActivePath(sid);
    expect(path.filter((e) => e.type === "thinking_level_change")).toHaveLength(1);
  });
});

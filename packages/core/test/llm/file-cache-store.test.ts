import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileCacheStore } from "../../src/llm/cache/file-cache-store.js";
import type { Recording } from "../../src/llm/cache/recording.js";
import { tempDir } from "../loop/harness.js";

function recording(n: number, text = `answer ${n}`, createdAt = "2026-03-01T10:00:00.000Z"): Recording {
  return {
    key: n.toString(16).padStart(64, "0"),
    model: "openai/gpt-4o",
    createdAt,
    parts: [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
      { type: "text-end", id: "t" },
      {
        type: "finish",
        usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
        finishReason: { unified: "stop", raw: "stop" },
      },
    ],
  };
}

describe("FileCacheStore", () => {
  it("keeps recordings across instances, newest line for a key winning", async () => {
    const dir = join(tempDir(), "cache");
    const a = new FileCacheStore(dir);
    expect(await a.size()).toEqual({ entries: 0, bytes: 0 });
    await a.set(recording(1));
    await a.set(recording(2));
    await a.set(recording(1, "newer"));
    const b = new FileCacheStore(dir);
    expect(await b.get(recording(1).key)).toEqual(recording(1, "newer"));
    expect(await b.get(recording(2).key)).toEqual(recording(2));
    expect(await b.get(recording(3).key)).toBeUndefined();
    expect((await b.size()).entries).toBe(2);
    expect(readFileSync(a.path, "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("skips corrupt lines and a torn last line, and the next append starts a line of its own", async () => {
    const dir = join(tempDir(), "cache");
    const first = new FileCacheStore(dir);
    await first.set(recording(1));
    appendFileSync(first.path, "not json\n");
    appendFileSync(first.path, `${JSON.stringify({ ...recording(5), parts: "nope" })}\n`);
    // A crash mid-append: half a line, no newline.
    appendFileSync(first.path, JSON.stringify(recording(2)).slice(0, 40));

    const store = new FileCacheStore(dir);
    expect(await store.get(recording(1).key)).toEqual(recording(1));
    expect(await store.get(recording(2).key)).toBeUndefined();
    // The record that parses as JSON but not as a recording is indexed, then refused when read.
    expect(await store.get(recording(5).key)).toBeUndefined();
    expect(store.skipped).toBe(1);
    await store.set(recording(3));
    expect(await new FileCacheStore(dir).get(recording(3).key)).toEqual(recording(3));
    const lines = readFileSync(store.path, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.filter((l) => l.startsWith('{"key"'))).toHaveLength(4);
  });

  it("sees what another instance (another process) appended, and a file replaced under it", async () => {
    const dir = join(tempDir(), "cache");
    const mine = new FileCacheStore(dir);
    const theirs = new FileCacheStore(dir);
    await mine.set(recording(1));
    await theirs.set(recording(2));
    expect(await mine.get(recording(2).key)).toEqual(recording(2));
    expect(await theirs.get(recording(1).key)).toEqual(recording(1));
    expect(await theirs.clear()).toBe(2);
    expect(await mine.get(recording(1).key)).toBeUndefined();
    expect(await mine.size()).toEqual({ entries: 0, bytes: 0 });
  });

  it("prunes by creation time and rewrites the file once dead records are most of it", async () => {
    const dir = join(tempDir(), "cache");
    const store = new FileCacheStore(dir);
    const big = "x".repeat(300_000);
    for (let i = 1; i <= 4; i++) await store.set(recording(i, big, "2026-03-01T10:00:00.000Z"));
    await store.set(recording(9, "fresh", "2026-03-02T10:00:00.000Z"));
    const before = statSync(store.path);
    expect(before.size).toBeGreaterThan(1_200_000);
    expect(await store.prune(Date.parse("2026-03-02T00:00:00.000Z"))).toBe(4);
    const after = statSync(store.path);
    // Rewritten by rename: a new file holding the one live record.
    expect(after.ino).not.toBe(before.ino);
    expect(after.size).toBeLessThan(1000);
    expect(await new FileCacheStore(dir).get(recording(9).key)).toEqual(recording(9, "fresh", "2026-03-02T10:00:00.000Z"));
    expect(await store.size()).toMatchObject({ entries: 1 });
  });

  it("clears by replacing the file atomically", async () => {
    const dir = join(tempDir(), "cache");
    const store = new FileCacheStore(dir);
    await store.set(recording(1));
    writeFileSync(join(dir, "unrelated.txt"), "kept");
    expect(await store.clear()).toBe(1);
    expect(readFileSync(store.path, "utf8")).toBe("");
    expect(readFileSync(join(dir, "unrelated.txt"), "utf8")).toBe("kept");
    expect(await store.get(recording(1).key)).toBeUndefined();
  });
});

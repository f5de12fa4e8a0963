import { mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it, vi } from "vitest";
import { createRuntime } from "../src/runtime.js";
import { InboxWatch } from "../src/store/file/inbox-watch.js";
import { openStore } from "../src/store/open.js";
import { MemoryBlobStore } from "../src/tools/blob-store.js";
import { collect, gateTool, harness, tempDir } from "./loop/harness.js";

/** The inotify watches this process has open (Linux), from the kernel's own account of its inotify descriptors. */
function inotifyWatches(): number | undefined {
  if (process.platform !== "linux") return undefined;
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let link: string;
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the descriptor readdir itself used, closed since
    }
    if (link !== "anon_inode:inotify") continue;
    n += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("inotify wd:")).length;
  }
  return n;
}

/** A message file left the way another process's store leaves one: written aside, then renamed in. */
function leaveMessage(dir: string, name: string): void {
  writeFileSync(join(dir, `.tmp-${name}`), JSON.stringify({ text: "hi", at: new Date().toISOString() }));
  renameSync(join(dir, `.tmp-${name}`), join(dir, name));
}

const HOUR = 3_600_000;

describe("the file store's inbox watch", () => {
  it("a message another writer leaves in a watched folder is seen without a look, and the watch goes when asked", async () => {
    const dir = join(tempDir(), "inbox");
    mkdirSync(dir);
    const before = inotifyWatches();
    const watch = new InboxWatch(HOUR);
    expect(watch.mayHaveNew("s", "")).toBe(true); // never read: nothing is known
    watch.reading("s", dir, true);
    watch.listed("s", "");
    expect(watch.mayHaveNew("s", "")).toBe(false);
    if (before !== undefined) expect(inotifyWatches()).toBe(before + 1);

    leaveMessage(dir, "000000000000001-aaaaaaaaaaaa.json");
    // No look is due for an hour: only the watch can tell.
    await vi.waitFor(() => expect(watch.mayHaveNew("s", "")).toBe(true));
    watch.reading("s", dir, true);
    watch.listed("s", "000000000000001-aaaaaaaaaaaa.json");
    // Listed but not yet read past by this cursor; read past by that one.
    expect(watch.mayHaveNew("s", "")).toBe(true);
    expect(watch.mayHaveNew("s", "000000000000001-aaaaaaaaaaaa.json")).toBe(false);

    watch.end("s");
    if (before !== undefined) expect(inotifyWatches()).toBe(before);
    expect(watch.mayHaveNew("s", "000000000000001-aaaaaaaaaaaa.json")).toBe(true);
  });

  it("a folder that does not exist yet is looked at every lookMs, not watched; this store's own posts count at once", () => {
    const dir = join(tempDir(), "inbox");
    const before = inotifyWatches();
    let now = 1_000;
    const watch = new InboxWatch(50, () => now);
    watch.reading("s", dir, false);
    watch.listed("s", "");
    expect(watch.mayHaveNew("s", "")).toBe(false);
    if (before !== undefined) expect(inotifyWatches()).toBe(before);
    now += 49;
    expect(watch.mayHaveNew("s", "")).toBe(false);
    now += 1;
    expect(watch.mayHaveNew("s", "")).toBe(true);
    watch.reading("s", dir, false);
    watch.listed("s", "");
    expect(watch.mayHaveNew("s", "")).toBe(false);
    watch.posted("s");
    expect(watch.mayHaveNew("s", "")).toBe(true);
    watch.end("s");
  });

  it("a run reads a message another store leaves at its next step, and its watch is closed when the run ends", async () => {
    const dir = join(tempDir(), "store");
    const store = await openStore(dir);
    const g = gateTool();
    const model = scriptedModel([[toolCall("gate", {})], [text("noted")]]);
    const { runtime } = await harness({ model, tools: [g.tool], store });
    // Steered once before: its inbox folder exists, so the run watches it.
    const session = await store.createSession();
    const old = await store.postInbox(session.id, "an old note");
    const before = inotifyWatches();
    const run = runtime.runs.run({ prompt: "go", sessionId: session.id });
    await g.reached;
    if (before !== undefined) expect(inotifyWatches()).toBe(before + 1);

    const otherStore = await openStore(dir);
    const other = createRuntime({ store: otherStore, cwd: tempDir(), env: {}, blobs: new MemoryBlobStore() });
    try {
      await other.sessions.steer(session.id, "from another terminal");
    } finally {
      await other.close();
      await otherStore.close();
    }
    // Seen by the watch once the event loop turns, or by a look within INBOX_LOOK_MS (the test above shows the watch alone).
    await vi.waitFor(() => expect(store.inboxMayHaveNew?.(session.id, old.id)).toBe(true));
    g.release();
    expect((await collect(run)).result.status).toBe("done");
    const second = model.calls[1]!.prompt.at(-1)!;
    expect(JSON.stringify(second.content)).toContain("from another terminal");
    expect(JSON.stringify(model.calls[1]!.prompt)).not.toContain("an old note");
    if (before !== undefined) expect(inotifyWatches()).toBe(before);
  });
});

import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import { createRuntime } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { messageTrace } from "../../src/trace/message-trace.js";
import { collect, gateTool, harness, tempDir } from "./harness.js";

/** What an entry is, in one word, for ordering assertions: `label`, `arbor.delete`, `assistant: done`… */
function kind(entry: Entry): string {
  if (entry.type === "message") {
    const first = entry.message.content[0];
    return `${entry.message.role}: ${first?.type === "text" ? first.text : (first?.type ?? "")}`;
  }
  return entry.type === "custom" ? entry.customType : entry.type;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error("expected a rejection");
}

/** A session with one answered question, then a second run held mid-turn by the gate tool. */
async function heldSession(store?: Store) {
  const gate = gateTool();
  const model = scriptedModel([[text("one")], [toolCall("gate", {})], [text("done")]]);
  const { runtime, store: opened } = await harness({
    model,
    tools: [gate.tool],
    holderName: "runtime A",
    ...(store ? { store } : {}),
  });
  const first = await collect(runtime.runs.run({ prompt: "first" }));
  const sessionId = first.result.sessionId;
  const path = await opened.getActivePath(sessionId);
  const question = messageTrace(sessionId, path).find((m) => m.role === "user");
  const held = runtime.runs.run({ sessionId, prompt: "hold" });
  await gate.reached;
  return { runtime, store: opened, sessionId, root: path[0]!.id, questionId: question!.id, gate, held };
}

describe("session operations go through the session's slot", () => {
  it("queue behind a running turn and land after it, never inside it; `reject` refuses at once having written nothing", async () => {
    const { runtime, store, sessionId, root, questionId, gate, held } = await heldSession();
    const before = (await store.listEntries(sessionId)).length;

    const refused = await rejection(runtime.sessions.label(sessionId, root, "refused", { busy: "reject" }));
    expect(refused).toMatchObject({ code: "session_busy" });
    expect(refused.message).toContain("runtime A");
    expect((await store.listEntries(sessionId)).length).toBe(before);

    const label = runtime.sessions.label(sessionId, root, "mark");
    const deleted = runtime.sessions.deleteMessage(sessionId, questionId);
    const granted = runtime.asks.grantApproval(sessionId, { agent: "build", permission: "read", pattern: ".env" });
    gate.release();
    expect((await held.result).status).toBe("done");
    await Promise.all([label, deleted, granted]);

    const kinds = (await store.listEntries(sessionId)).map(kind);
    const done = kinds.indexOf("assistant: done");
    expect(done).toBeGreaterThan(0);
    // The run's turn (tool call, result, answer) is contiguous; the operations follow it in the order asked.
    expect(kinds.slice(done + 1)).toEqual(["label", "arbor.delete", "arbor.permission_approval"]);
    expect(await runtime.runs.busy(sessionId)).toBeUndefined();
  });

  it("another runtime over the same store is refused with session_busy naming the driver, for every operation", async () => {
    const dir = join(tempDir(), "store");
    const { store, sessionId, root, questionId, gate, held } = await heldSession(await openStore(dir));
    // A second store instance over the same data stands for a second process.
    const other = await openStore(dir);
    const b = createRuntime({ store: other, env: {}, blobs: new MemoryBlobStore(), tools: [], holderName: "runtime B" });
    try {
      const before = await store.listEntries(sessionId);
      const attempts = {
        label: b.sessions.label(sessionId, root, "x"),
        deleteMessage: b.sessions.deleteMessage(sessionId, questionId),
        switchLeaf: b.sessions.switchLeaf(sessionId, root),
        revert: b.sessions.revert(sessionId),
        unrevert: b.sessions.unrevert(sessionId),
        delete: b.sessions.delete(sessionId),
        grant: b.asks.grantApproval(sessionId, { agent: "build", permission: "read", pattern: ".env" }),
        revoke: b.asks.revokeApproval(sessionId, { agent: "build", permission: "read", pattern: ".env" }),
      };
      for (const [name, attempt] of Object.entries(attempts)) {
        const err = await rejection(attempt);
        expect({ name, code: err.code }).toEqual({ name, code: "session_busy" });
        expect(err.message).toContain("runtime A");
      }
      expect(await store.listEntries(sessionId)).toEqual(before);
      gate.release();
      expect((await held.result).status).toBe("done");
      // Once the run is over, the other runtime may change the session.
      await b.sessions.label(sessionId, root, "after");
      expect((await store.listEntries(sessionId)).map(kind).at(-1)).toBe("label");
    } finally {
      await b.close();
      await other.close();
    }
  });
});

describe("runs.start admits a prompt before anything is streamed", () => {
  it("steers a running session, or refuses it with session_busy having written nothing", async () => {
    const { runtime, store, sessionId, gate, held } = await heldSession();
    const before = await store.listEntries(sessionId);
    const refused = await rejection(runtime.runs.start({ sessionId, prompt: "no", onBusy: "reject" }));
    expect(refused).toMatchObject({ code: "session_busy" });
    expect(await store.listEntries(sessionId)).toEqual(before);
    expect(await store.readInbox(sessionId, (await store.readInbox(sessionId)).cursor)).toMatchObject({ messages: [] });

    const steered = await runtime.runs.start({ sessionId, prompt: "also say hi" });
    expect(steered).toMatchObject({ kind: "steered", sessionId, driver: { purpose: "runtime A" } });
    gate.release();
    expect((await held.result).status).toBe("done");

    const fresh = await runtime.runs.start({ prompt: "" });
    expect(fresh.kind).toBe("started");
    await expect(rejection(runtime.runs.start({ sessionId: "no-such-session", prompt: "x" }))).resolves.toMatchObject({
      code: "session_not_found",
    });
  });

  it("of two runtimes over one store starting the same idle session at once, exactly one starts", async () => {
    const dir = join(tempDir(), "store");
    const gate = gateTool();
    const script = () => scriptedModel([[toolCall("gate", {})], [text("done")]]);
    const { runtime: a, store } = await harness({ store: await openStore(dir), model: script(), tools: [gate.tool] });
    const other = await openStore(dir);
    const b = createRuntime({ store: other, env: {}, blobs: new MemoryBlobStore(), model: script(), tools: [gate.tool] });
    try {
      const { id } = await store.createSession();
      const answers = await Promise.allSettled([
        a.runs.start({ sessionId: id, prompt: "from a", onBusy: "reject" }),
        b.runs.start({ sessionId: id, prompt: "from b", onBusy: "reject" }),
      ]);
      const started = answers.flatMap((r) => (r.status === "fulfilled" && r.value.kind === "started" ? [r.value.handle] : []));
      const refused = answers.flatMap((r) => (r.status === "rejected" ? [r.reason as { code: string }] : []));
      expect(started).toHaveLength(1);
      expect(refused.map((e) => e.code)).toEqual(["session_busy"]);
      await gate.reached;
      gate.release();
      expect((await started[0]!.result).status).toBe("done");
    } finally {
      await b.close();
      await other.close();
    }
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { isArborError } from "../../src/errors.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { RunEvent } from "../../src/model/run-events.js";
import type { RuntimeOptions } from "../../src/runtime/types.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { inNamespace } from "../helpers/sql-databases.js";
import { firstOf, harness, tempDir, transcript } from "./harness.js";
import { askThenKill } from "./killed-asker.js";

/**
 * Permission asks live in the store: a run on one runtime waits on an ask that a second runtime over
 * the same store (another process, another machine) lists and answers, exactly once.
 */

const readEnv = (id: string) => [toolCall("read", { path: ".env" }, { id })];

/** The first permission_request of a run, read from its stream; the rest of the stream is read by `rest`. */
async function firstAsk(handle: RunHandle): Promise<{ id: string; rest: Promise<RunEvent[]> }> {
  const { event, rest } = await firstOf(handle, "permission_request");
  return { id: event.id, rest };
}

/** A second runtime over `open()`'s data: another process as far as the store can tell. */
async function secondRuntime(open: () => Promise<Store>, cwd: string, home: string, extra: Partial<RuntimeOptions> = {}) {
  return harness({ store: await open(), cwd, arborHome: home, model: scriptedModel([]), ...extra });
}

async function listedAndAnsweredElsewhere(open: () => Promise<Store>) {
  const a = await harness({
    model: scriptedModel([readEnv("r1"), [text("The key is set.")]]),
    store: await open(),
    askPollMs: 25,
  });
  writeFileSync(join(a.cwd, ".env"), "KEY=1\n");
  const b = await secondRuntime(open, a.cwd, a.home);
  const handle = a.runtime.runs.run({ prompt: "check .env" });
  const { id, rest } = await firstAsk(handle);

  // Runtime B lists the ask it has no run for, and answers it.
  const listed = await b.runtime.asks.listPermissions();
  expect(listed.map((p) => p.id)).toEqual([id]);
  expect(listed[0]).toMatchObject({ sessionId: handle.sessionId, tool: "read", callId: "r1" });
  expect(b.runtime.asks.pendingPermissions()).toEqual([]);
  const answeredAt = Date.now();
  await b.runtime.asks.answerPermission(id, "once");
  // A second answer, from either runtime, is refused and changes nothing.
  await expect(a.runtime.asks.answerPermission(id, "reject")).rejects.toMatchObject({ code: "ask_already_answered" });
  await expect(b.runtime.asks.answerPermission(id, "always")).rejects.toMatchObject({ code: "ask_already_answered" });

  const events = await rest;
  const continued = events.find((e) => e.type === "tool_end");
  const latencyMs = Date.now() - answeredAt;
  expect(continued).toMatchObject({ is_error: false });
  expect((await handle.result).status).toBe("done");
  expect((await transcript(a.store, handle.sessionId)).join("\n")).toContain("KEY=1");
  expect(await b.runtime.asks.listPermissions()).toEqual([]);
  return latencyMs;
}

describe("asks shared through the store", () => {
  it("file store: an ask of runtime A is listed and answered through runtime B, and A's run goes on", async () => {
    const dir = join(tempDir(), "store");
    const latency = await listedAndAnsweredElsewhere(() => openStore(dir));
    // One poll interval (25 ms) plus the tool's work; far below a person's reaction time.
    expect(latency).toBeLessThan(5_000);
  });

  it("PostgreSQL: an ask of runtime A is listed and answered through runtime B, and A's run goes on", async () => {
    await inNamespace("postgres", (spec) => listedAndAnsweredElsewhere(() => openStore(spec)));
  });

  it("an ask past its expiry is refused: an answer gets ask_expired and the run is told nobody answered", async () => {
    const model = scriptedModel([readEnv("r1"), [text("unreached")]]);
    const a = await harness({ model, askTtlMs: 150, askPollMs: 25 });
    writeFileSync(join(a.cwd, ".env"), "KEY=1\n");
    const handle = a.runtime.runs.run({ prompt: "check .env" });
    const { id, rest } = await firstAsk(handle);
    const events = await rest;
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ is_error: true });
    expect(JSON.stringify(end)).toContain("expired");
    const err = await a.runtime.asks.answerPermission(id, "once").catch((e: unknown) => e);
    expect(isArborError(err, "ask_expired")).toBe(true);
    expect((await a.store.getAsk(id))?.answer).toBeUndefined();
    expect(await a.runtime.asks.listPermissions()).toEqual([]);
    await handle.result;
  });

  it("a run killed (kill -9) while it waited resumes waiting on the same ask; answered then, it finishes once", async () => {
    const dir = join(tempDir(), "store");
    const cwd = tempDir();
    const home = tempDir();
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const [sessionId, askId] = (await askThenKill("ask-and-wait.mjs", [dir, cwd, home])) as [string, string];

    const model = scriptedModel([[text("The key is set.")]]);
    const b = await secondRuntime(() => openStore(dir), cwd, home, { model, askPollMs: 25 });
    const c = await secondRuntime(() => openStore(dir), cwd, home);
    expect((await c.runtime.asks.listPermissions()).map((p) => p.id)).toEqual([askId]);
    const resumed = b.runtime.runs.resume(sessionId);
    const { id, rest } = await firstAsk(resumed);
    expect(id).toBe(askId);
    await c.runtime.asks.answerPermission(askId, "once");
    const events = await rest;
    expect(events.filter((e) => e.type === "tool_end")).toEqual([expect.objectContaining({ is_error: false })]);
    expect((await resumed.result).status).toBe("done");
    expect(await b.store.listAsks({ sessionId })).toHaveLength(1);
    const lines = await transcript(b.store, sessionId);
    expect(lines.filter((l) => l.includes("KEY=1"))).toHaveLength(1);
    expect(lines.at(-1)).toContain("The key is set.");
    await expect(c.runtime.asks.answerPermission(askId, "once")).rejects.toMatchObject({ code: "ask_already_answered" });
  });
});

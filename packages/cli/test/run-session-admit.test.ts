import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, FileStore, openStore } from "@arbor/core";
import { scriptedModel, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gateTool } from "../../core/test/helpers/gate-tool.js";
import { run } from "../src/cli.js";
import { FAKE_MODEL } from "./helpers/e2e.js";
import { captureIo } from "./helpers/io.js";

/**
 * `arbor run --session <id>` decides "steer the running run, or start one" and takes the session in
 * one runtime call. Another process that starts a run on the session at the last moment before this
 * one takes it (here: inside this process's lease attempt, on a second store over the same files)
 * must meet a prompt that steers its run, never an `arbor run` that answered "free" and then failed
 * with session_busy.
 */

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("arbor run --session admits and starts in one step", () => {
  it("steers a run another process started just before it took the session, instead of failing with session_busy", async () => {
    const home = await mkdtemp(join(tmpdir(), "arbor-run-admit-"));
    cleanup.push(() => rm(home, { recursive: true, force: true }));
    const fake = await startFakeOpenAI({ script: [[text("answered by arbor run")]] });
    cleanup.push(() => fake.close());

    const seed = await openStore(home);
    const { id: sessionId } = await seed.createSession();
    await seed.close();

    // The other process: its own store over the same files, and a run held in its gate tool.
    const otherStore = await openStore(home);
    const held = gateTool();
    const other = createRuntime({
      store: otherStore,
      env: {},
      arborHome: home,
      // The steer is read at the step after the gate, or (a store's inbox watch sees another store's
      // message within a turn or INBOX_LOOK_MS) after that step's answer, which takes one step more.
      model: scriptedModel([[toolCall("gate", {})], [text("done")], [text("done, in blue")]]),
      tools: [held.tool],
      holderName: "the other process",
    });
    cleanup.push(async () => {
      await other.close();
      await otherStore.close();
    });

    // The other process starts its run the moment this one first tries to take the session.
    let otherRun: ReturnType<typeof other.runs.run> | undefined;
    const acquire = FileStore.prototype.acquireLease;
    vi.spyOn(FileStore.prototype, "acquireLease").mockImplementation(async function (this: FileStore, id, purpose) {
      if (this !== otherStore && otherRun === undefined) {
        otherRun = other.runs.run({ sessionId, prompt: "hold the session" });
        await Promise.race([held.reached, otherRun.result]);
      }
      return acquire.call(this, id, purpose);
    });

    const io = captureIo({ env: { ARBOR_HOME: home }, homedir: home });
    const code = await run(
      ["run", "--json", "--session", sessionId, "Use blue instead.", "--model", FAKE_MODEL, "--base-url", fake.baseURL],
      io,
    );
    expect(io.out()).not.toContain("session_busy");
    expect({ code, err: io.err() }).toMatchObject({ code: 0 });
    expect(JSON.parse(io.out().trim())).toMatchObject({ type: "steered", session_id: sessionId });
    // No model call of its own: the prompt went to the other process's run.
    expect(fake.callCount).toBe(0);

    held.release();
    expect((await otherRun!.result).status).toBe("done");
    const check = await openStore(home);
    cleanup.push(() => check.close());
    const said = (await check.getActivePath(sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "user"
        ? e.message.content.flatMap((p) => (p.type === "text" ? [p.text] : []))
        : [],
    );
    expect(said.some((t) => t.includes("Use blue instead."))).toBe(true);
  });
});

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reasoning, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { loadCassette, parseCassette } from "../../src/llm/cassette/cassette-file.js";
import { cassettePlayer, cassetteResolver } from "../../src/llm/cassette/cassette-player.js";
import { CassetteRecorder } from "../../src/llm/cassette/cassette-recorder.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { collect, harness, tempDir, transcript, types } from "../loop/harness.js";

const script = () =>
  scriptedModel(
    [
      [
        reasoning("look first"),
        text("Reading.", { chunks: 2 }),
        toolCall("read", { path: "a.txt" }, { id: "c1" }),
        usage({ inputTokens: 30, outputTokens: 5 }),
      ],
      [text("It says hello.", { chunks: 3 }), usage({ inputTokens: 50, outputTokens: 4 })],
    ],
    { provider: "openai", modelId: "gpt-4o" },
  );

const tokens = (events: readonly RunEvent[]) => events.flatMap((e) => (e.type === "token" ? [e.content] : []));

/** Records the two-step run to a cassette file; returns the file, the live run and its workspace. */
async function record() {
  const file = join(tempDir(), "run.cassette.json");
  const recorder = new CassetteRecorder({ path: file, run: { prompt: "What does a.txt say?", model: "openai/gpt-4o" } });
  const h = await harness({ model: script(), wrapModel: (model, use) => recorder.wrap(model, use.ref) });
  writeFileSync(join(h.cwd, "a.txt"), "hello\n");
  const live = await collect(h.runtime.runs.run({ prompt: "What does a.txt say?" }));
  await recorder.flush();
  return { file, live, recorder, h };
}

describe("cassettes: whole-run record and replay", () => {
  it("records every call in order and replays the run through the real loop, tools and store", async () => {
    const { file, live, h } = await record();
    expect(live.result.status).toBe("done");
    const cassette = await loadCassette(file);
    expect(cassette).toMatchObject({ format: "arbor-cassette", version: 1, run: { model: "openai/gpt-4o" } });
    expect(cassette.interactions.map((i) => [i.model, i.request?.messages])).toEqual([
      ["openai/gpt-4o", 2],
      ["openai/gpt-4o", 4],
    ]);
    expect(cassette.interactions[1]?.request?.last).toMatch(/^tool: result of read: .*hello/);

    // Another workspace (another system prompt): the replay key ignores it.
    const player = cassettePlayer(cassette, { source: file });
    const replay = await harness({ model: player, models: cassetteResolver(player) });
    writeFileSync(join(replay.cwd, "a.txt"), "hello\n");
    const replayed = await collect(replay.runtime.runs.run({ prompt: "What does a.txt say?" }));
    expect(replayed.result).toMatchObject({ status: "done", text: "It says hello.", steps: 2, usage: { input: 80, output: 9 } });
    expect(player).toMatchObject({ position: 2, remaining: 0, provider: "openai", modelId: "gpt-4o" });
    expect(types(replayed.events)).toEqual(types(live.events));
    expect(tokens(replayed.events)).toEqual(tokens(live.events));
    expect(await transcript(replay.store, replayed.result.sessionId)).toEqual(await transcript(h.store, live.result.sessionId));
  });

  it("fails a diverging replay at the step where it diverged, naming it", async () => {
    const { file } = await record();
    const player = cassettePlayer(await loadCassette(file), { source: file });
    const replay = await harness({ model: player, models: cassetteResolver(player) });
    writeFileSync(join(replay.cwd, "a.txt"), "goodbye\n");
    const { result, events } = await collect(replay.runtime.runs.run({ prompt: "What does a.txt say?" }));
    expect(result.status).toBe("error");
    expect(result.error?.message).toContain(`Step 2 of ${file} does not match the run`);
    expect(result.error?.message).toMatch(/the run sent tool: result of read: .*goodbye/);
    expect(result.error?.message).toMatch(/The recording answered tool: result of read: .*hello/);
    expect(events.at(-1)).toMatchObject({ type: "error" });
  });

  it("fails a replay that asks for more calls than were recorded, and one with another prompt at step 1", async () => {
    const { file } = await record();
    const cassette = await loadCassette(file);
    const short = cassettePlayer({ ...cassette, interactions: cassette.interactions.slice(0, 1) }, { source: "short.json" });
    const a = await harness({ model: short, models: cassetteResolver(short) });
    writeFileSync(join(a.cwd, "a.txt"), "hello\n");
    const ran = await collect(a.runtime.runs.run({ prompt: "What does a.txt say?" }));
    expect(ran.result.error?.message).toContain("short.json holds 1 model call, and the run asked for call 2");

    const other = cassettePlayer(cassette, { source: "c.json" });
    const b = await harness({ model: other, models: cassetteResolver(other) });
    const wrong = await collect(b.runtime.runs.run({ prompt: "Something else" }));
    expect(wrong.result.error?.message).toContain("Step 1 of c.json does not match the run: the run sent user: Something else.");
  });

  it("validates a cassette on load and names what is wrong", async () => {
    const { file } = await record();
    const data = JSON.parse(readFileSync(file, "utf8"));
    data.interactions[0].parts[1] = { type: "text-delta", id: 3 };
    const bad = join(tempDir(), "bad.json");
    writeFileSync(bad, JSON.stringify(data));
    await expect(loadCassette(bad)).rejects.toMatchObject({
      code: "invalid_cassette",
      message: expect.stringMatching(/bad\.json is not an Arbor cassette: interactions\.0\.parts\.1/),
    });
    await expect(loadCassette(join(tempDir(), "none.json"))).rejects.toMatchObject({
      code: "invalid_cassette",
      message: expect.stringContaining("No cassette at"),
    });
    expect(() => parseCassette({ format: "arbor-cassette", version: 2 }, "x.json")).toThrow(/x\.json is not an Arbor cassette/);
  });

  it("replays at the recorded pace when asked, waiting on the given clock", async () => {
    const { file } = await record();
    const cassette = await loadCassette(file);
    cassette.interactions[0]!.latencyMs = 250;
    cassette.interactions[1]!.latencyMs = 40;
    const waits: number[] = [];
    const player = cassettePlayer(cassette, {
      pace: "recorded",
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const h = await harness({ model: player, models: cassetteResolver(player) });
    writeFileSync(join(h.cwd, "a.txt"), "hello\n");
    expect((await collect(h.runtime.runs.run({ prompt: "What does a.txt say?" }))).result.status).toBe("done");
    expect(waits).toEqual([250, 40]);
  });
});

import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { loadCassette } from "@arbor/core/llm";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { CliResult } from "./helpers/cli.js";
import { FAKE_MODEL, runEvents, setupCliE2e } from "./helpers/e2e.js";

/** `arbor run --record` against the fake OpenAI-compatible server, then `--replay` with no server at all. */

const e2e = setupCliE2e("arbor-cassette-e2e-", { files: { "notes.txt": "the answer is 42\n" } });

const events = runEvents;

const shape = (all: readonly RunEvent[]) =>
  all.map((e) => (e.type === "token" ? `token:${e.content}` : e.type === "tool_end" ? `tool_end:${e.output}` : e.type));

describe("arbor run --record / --replay", () => {
  it("records a run against a provider and replays it with no provider, no key and no network", async () => {
    const server = await e2e.startFake({
      script: [
        [
          text("Let me look."),
          toolCall("read", { path: "notes.txt" }, { id: "call_1" }),
          usage({ inputTokens: 120, outputTokens: 9 }),
        ],
        [text("The notes say ", { chunks: 2 }), text("42."), usage({ inputTokens: 160, outputTokens: 6 })],
      ],
    });
    const cassette = join(e2e.dir, "notes.cassette.json");
    const base = ["run", "--json", "--cwd", e2e.workspace];
    let recorded: CliResult;
    try {
      recorded = await e2e.cli([
        ...base,
        "--model",
        FAKE_MODEL,
        "--base-url",
        server.baseURL,
        "--record",
        cassette,
        "What do the notes say?",
      ]);
    } finally {
      await server.close();
    }
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stderr).toBe(`arbor: recorded 2 model calls to ${cassette} (replay with --replay ${cassette})\n`);
    const file = await loadCassette(cassette);
    expect(file.run).toMatchObject({ prompt: "What do the notes say?", model: FAKE_MODEL });
    expect(file.interactions).toHaveLength(2);

    const replayed = await e2e.cli([...base, "--replay", cassette, "What do the notes say?"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stderr).toBe("");
    expect(shape(events(replayed))).toEqual(shape(events(recorded)));
    expect(events(replayed).find((e) => e.type === "llm_end")).toMatchObject({
      model: FAKE_MODEL,
      input_tokens: 120,
    });

    // The workspace changed, so the tool answers differently: the replay stops at the call that no longer matches.
    await writeFile(join(e2e.workspace, "notes.txt"), "the answer is 43\n");
    try {
      const diverged = await e2e.cli([...base, "--replay", cassette, "What do the notes say?"]);
      expect(diverged.code).toBe(1);
      const last = events(diverged).at(-1);
      expect(last).toMatchObject({ type: "error" });
      expect((last as { content: string }).content).toMatch(
        /Step 2 of .*notes\.cassette\.json does not match the run.*answer is 43/,
      );
    } finally {
      await writeFile(join(e2e.workspace, "notes.txt"), "the answer is 42\n");
    }
  });

  it("refuses a bad cassette or bad flags with exit 2 before any store is opened", async () => {
    const fresh = join(e2e.dir, "home-never-created");
    const bad = join(e2e.dir, "bad.json");
    await writeFile(bad, JSON.stringify({ format: "arbor-cassette", version: 1, interactions: "no" }));
    const cases: Array<[string[], RegExp]> = [
      [["--replay", bad], /bad\.json is not an Arbor cassette: recordedAt: .*interactions/],
      [["--replay", join(e2e.dir, "missing.json")], /No cassette at .*missing\.json/],
      [["--replay", bad, "--record", join(e2e.dir, "x.json")], /--record and --replay do not go together/],
      [["--replay", bad, "--model", "openai/gpt-4o"], /--replay answers from the cassette's recorded model; drop --model/],
      [["--record", join(e2e.dir, "no", "such", "dir", "x.json")], /--record .*: no directory .* to write the cassette in/],
    ];
    for (const [flags, message] of cases) {
      const r = await e2e.cli(["run", "--cwd", e2e.workspace, ...flags, "hi"], { home: fresh });
      expect(r.code, flags.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(fresh)).toBe(false);
    expect(await readFile(bad, "utf8")).toContain("arbor-cassette");
  });
});

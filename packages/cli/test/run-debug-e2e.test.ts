import { openStore } from "@arbor/core";
import { readDebugRecords } from "@arbor/core/events";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";

/** `arbor run --debug <level>`: the run's calls are kept for the inspector's Debug tab, as over the API. */

const e2e = setupCliE2e("arbor-run-debug-", { files: { "notes.txt": "the answer is 42\n" } });

const args = e2e.runArgs;

describe("arbor run --debug", () => {
  it("records the tool and model calls at the level asked for", async () => {
    const server = await e2e.startFake({
      script: [
        [text("Let me look."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 120, outputTokens: 9 })],
        [text("It says 42."), usage({ inputTokens: 160, outputTokens: 6 })],
      ],
    });
    const r = await e2e.cli(args(server.baseURL, "--debug", "full", "What do the notes say?"));
    expect(r.code, r.stderr).toBe(0);
    const sessionId = (JSON.parse(r.stdout.trimEnd().split("\n")[0] as string) as { session_id: string }).session_id;
    const store = await openStore({ kind: "file", dir: e2e.home });
    try {
      const { records } = await readDebugRecords(store, sessionId, { limit: 100 });
      const llm = records.filter((x) => x.kind === "llm");
      const tools = records.filter((x) => x.kind === "tool");
      expect(llm).toHaveLength(2);
      expect(llm[0]).toMatchObject({ level: "full", input_tokens: 120, output_tokens: 9 });
      expect(llm[0]?.input).toContain("What do the notes say?");
      expect(tools).toMatchObject([{ tool: "read", level: "full" }]);
    } finally {
      await store.close();
    }
  });

  it("refuses a level it does not know, naming the levels, before any run", async () => {
    const server = await e2e.startFake({ script: [] });
    const r = await e2e.cli(args(server.baseURL, "--debug", "verbose", "hi"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--debug verbose: use one of off, basic, standard, full.");
    expect(server.requests).toHaveLength(0);
  });
});

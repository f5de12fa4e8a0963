import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@arbor/core";
import { readDebugRecords } from "@arbor/core/events";
import { type FakeOpenAIServer, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";

/** `arbor run --debug <level>`: the run's calls are kept for the inspector's Debug tab, as over the API. */

let dir: string;
let home: string;
let workspace: string;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-run-debug-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(workspace);
  await writeFile(join(workspace, "notes.txt"), "the answer is 42\n");
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const args = (baseURL: string, ...rest: string[]) => [
  "run",
  "--json",
  "--model",
  "openai-compatible/fake",
  "--base-url",
  baseURL,
  "--cwd",
  workspace,
  ...rest,
];

describe("arbor run --debug", () => {
  it("records the tool and model calls at the level asked for", async () => {
    server = await startFakeOpenAI({
      script: [
        [text("Let me look."), toolCall("read", { path: "notes.txt" }), usage({ inputTokens: 120, outputTokens: 9 })],
        [text("It says 42."), usage({ inputTokens: 160, outputTokens: 6 })],
      ],
    });
    const r = await arbor(args(server.baseURL, "--debug", "full", "What do the notes say?"), { home });
    expect(r.code, r.stderr).toBe(0);
    const sessionId = (JSON.parse(r.stdout.trimEnd().split("\n")[0] as string) as { session_id: string }).session_id;
    const store = await openStore({ kind: "file", dir: home });
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
    server = await startFakeOpenAI({ script: [] });
    const r = await arbor(args(server.baseURL, "--debug", "verbose", "hi"), { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--debug verbose: use one of off, basic, standard, full.");
    expect(server.requests).toHaveLength(0);
  });
});

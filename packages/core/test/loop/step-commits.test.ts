import { scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.js";
import { TOOL_STARTED_ENTRY_TYPE } from "../../src/loop/tool-start.js";
import type { Entry } from "../../src/model/entry.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, firstOf, harness, tempDir } from "./harness.js";

/**
 * A step's assistant message and its first call's start record are written in one append (one commit
 * on SQLite instead of two) when nothing comes between them; the message is still stored before any
 * tool runs, and stored alone before anything the run waits on (a doom-loop ask) or a stop.
 */

function kind(entry: Entry): string {
  if (entry.type === "message") return `${entry.message.role}`;
  return entry.type === "custom" ? entry.customType : entry.type;
}

/** The store's public writes, each as the kinds of what it wrote: `[assistant, arbor.tool_started]` is one append of two. */
function recordWrites(store: Store): string[][] {
  const writes: string[][] = [];
  const appendEntries = store.appendEntries.bind(store);
  const appendMessage = store.appendMessage.bind(store);
  const appendEntry = store.appendEntry.bind(store);
  store.appendEntries = async (...args) => {
    const entries = await appendEntries(...args);
    writes.push(entries.map(kind));
    return entries;
  };
  store.appendMessage = async (...args) => {
    const entry = await appendMessage(...args);
    writes.push([kind(entry)]);
    return entry;
  };
  store.appendEntry = async (...args) => {
    const entry = await appendEntry(...args);
    writes.push([kind(entry)]);
    return entry;
  };
  return writes;
}

const stores: Array<[string, () => Promise<Store>]> = [
  ["file", () => openStore(tempDir("arbor-step-commits-"))],
  ["sqlite", () => openStore("sqlite::memory:")],
];

describe.each(stores)("a step's writes (%s store)", (_name, open) => {
  /** What the session's active path ended with when each run of `note` began. */
  let seenByTool: string[][];
  const noteTool = defineTool({
    name: "note",
    description: "Writes a note.",
    input: z.object({ line: z.string() }),
    async execute(input, ctx) {
      const path = await storeOf().getActivePath(ctx.sessionId);
      seenByTool.push(path.slice(-2).map(kind));
      return { output: `noted ${input.line}` };
    },
  });
  let current: Store | undefined;
  const storeOf = () => current as Store;

  async function setUp(model: ReturnType<typeof scriptedModel>, config?: ReturnType<typeof resolveConfig>) {
    seenByTool = [];
    current = await open();
    const writes = recordWrites(current);
    const { runtime } = await harness({ model, store: current, tools: [noteTool], ...(config ? { config } : {}) });
    return { runtime, writes };
  }

  it("stores the message and the first call's start record in one append, before the tool runs", async () => {
    const model = scriptedModel([[toolCall("note", { line: "a" }, { id: "c1" })], [text("Noted.")]]);
    const { runtime, writes } = await setUp(model);
    const { result } = await collect(runtime.runs.run({ prompt: "note a" }));
    expect(result).toMatchObject({ status: "done", text: "Noted." });
    expect(seenByTool).toEqual([["assistant", TOOL_STARTED_ENTRY_TYPE]]);
    expect(writes).toEqual([["user"], ["assistant", TOOL_STARTED_ENTRY_TYPE], ["tool"], ["assistant"]]);
  });

  it("writes the message alone before a doom-loop ask, and the call's start record only once it is allowed", async () => {
    const same = () => [toolCall("note", { line: "same" })];
    const model = scriptedModel([same(), same(), same(), [text("Done.")]]);
    const { runtime, writes } = await setUp(model);
    const handle = runtime.runs.run({ prompt: "note it" });
    const { event, rest } = await firstOf(handle, "permission_request");
    expect(event).toMatchObject({ permission: "doom_loop" });
    // While the run waits on the person, the third answer is stored and nothing of its call is.
    const path = await storeOf().getActivePath(handle.sessionId);
    expect(path.slice(-2).map(kind)).toEqual(["tool", "assistant"]);
    runtime.asks.replyPermission(event.id, "once");
    await rest;
    expect(await handle.result).toMatchObject({ status: "done", text: "Done." });
    expect(writes.slice(-4)).toEqual([["assistant"], [TOOL_STARTED_ENTRY_TYPE], ["tool"], ["assistant"]]);
    expect(seenByTool).toHaveLength(3);
    for (const seen of seenByTool) expect(seen).toEqual(["assistant", TOOL_STARTED_ENTRY_TYPE]);
  });

  it("records no start for a call the step's own spending stops", async () => {
    const model = scriptedModel([[toolCall("note", { line: "a" }, { id: "c1" }), usage({ inputTokens: 20, outputTokens: 5 })]]);
    const config = resolveConfig([{ source: "test", value: { agent: { maxTraceTokens: 10 } } }]);
    const { runtime, writes } = await setUp(model, config);
    const { result } = await collect(runtime.runs.run({ prompt: "note a" }));
    expect(result).toMatchObject({ status: "done", stopReason: "budget" });
    expect(seenByTool).toEqual([]);
    expect(writes).toEqual([["user"], ["assistant"], ["tool"]]);
  });
});

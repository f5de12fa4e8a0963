import type { EntryInput, SessionMeta, Store } from "@arbor/core";

/** A 1×1 PNG, to show that images in messages render. */
export const TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const FINAL_ANSWER = [
  "# Parser fixed",
  "",
  "**Bug:** the counter started at `1`.",
  "",
  "```ts",
  "const x = 2;",
  "export function parse(input: string) { return input; }",
  "```",
  "",
  "| file | change |",
  "| --- | --- |",
  "| src/parse.ts | counter |",
  "",
  "See [the docs](https://example.com/docs).",
  "",
  '<img src="x" onerror="window.__injected = 1"> <script>window.__injected = 2</script>',
].join("\n");

export interface RichSession {
  parent: SessionMeta;
  /** Sub-traces in the order they ran. */
  subs: SessionMeta[];
}

/** Waits for the clock's next millisecond, so sessions created one after another have distinct creation times. */
function nextMillisecond(): void {
  const now = Date.now();
  while (Date.now() === now) {
    // spin: a clock tick, not a wait for another task
  }
}

const usage = (input: number, cacheRead: number, output: number, reasoning: number) => ({
  input,
  output,
  reasoning,
  cacheRead,
  cacheWrite: 0,
});

/**
 * A session written straight to the store with what the readable views are for: Markdown answers,
 * an edit with its diff, a step's file patch, a long tool output, an image, a goal call, todos, a
 * compaction, priced and unpriced model calls, and two sub-traces with a sub-agent result.
 */
export async function writeRichSession(store: Store, options: { cwd?: string; priced?: boolean } = {}): Promise<RichSession> {
  const priced = options.priced ?? true;
  const parent = await store.createSession({ title: "Fix the parser", ...(options.cwd ? { cwd: options.cwd } : {}) });
  const subs: SessionMeta[] = [];
  for (const task of ["Step 1: find the callers", "Step 2: check the tests"]) {
    nextMillisecond();
    subs.push(await store.createSession({ parentSessionId: parent.id, agentType: "explore", mode: "agent", task }));
  }
  const cost = (c: number) => (priced ? { cost: c } : {});
  const entries: EntryInput[] = [
    {
      type: "message",
      message: {
        role: "user",
        content: [
          { type: "text", text: "Fix the parser bug, see the screenshot." },
          { type: "file", mediaType: "image/png", filename: "screenshot.png", data: TINY_PNG },
        ],
      },
    },
    {
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Plan first, then edit." },
          { type: "tool-call", toolCallId: "c1", toolName: "goal", input: { add: "Read the parser, Fix the bug", focus: "1" } },
          {
            type: "tool-call",
            toolCallId: "c2",
            toolName: "edit",
            input: { path: "src/parse.ts", oldString: "const x = 1;", newString: "const x = 2;" },
          },
          { type: "tool-call", toolCallId: "c3", toolName: "bash", input: { command: "seq 1 100" } },
        ],
        model: "scripted/model",
        tokens: usage(1200, 300, 80, 40),
        ...cost(0.0123),
      },
    },
    {
      type: "message",
      message: {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "goal", output: { type: "text", value: "Plan updated." } },
          { type: "tool-result", toolCallId: "c2", toolName: "edit", output: { type: "text", value: "Edited src/parse.ts" } },
          {
            type: "tool-result",
            toolCallId: "c3",
            toolName: "bash",
            output: { type: "text", value: Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n") },
          },
        ],
        durationMs: 42,
      },
    },
    {
      type: "custom",
      customType: "arbor.patch",
      data: {
        workspace: "/work",
        before: "t1",
        after: "t2",
        files: [
          {
            path: "src/parse.ts",
            status: "modified",
            diff: "--- a/src/parse.ts\n+++ b/src/parse.ts\n@@ -1 +1 @@\n-const x = 1;\n+const x = 2;\n",
          },
        ],
      },
    },
    {
      type: "custom",
      customType: "arbor.todos",
      data: {
        todos: [
          { content: "Read the parser", status: "completed" },
          { content: "Fix the bug", status: "in_progress" },
        ],
      },
    },
    { type: "compaction", summary: "Earlier: the parser was **read**.", firstKeptEntryId: null, tokensBefore: 50_000 },
    {
      type: "subagent_result",
      batchId: "b1",
      subSessionId: subs[0]?.id as string,
      status: "completed",
      summary: "Found **two** callers of `parse`.",
    },
    {
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text: FINAL_ANSWER }],
        model: "scripted/model",
        tokens: usage(900, 1500, 200, 0),
        ...cost(0.02),
      },
    },
  ] as EntryInput[];
  await store.appendEntries(parent.id, entries);
  return { parent: (await store.getSession(parent.id)) as SessionMeta, subs };
}

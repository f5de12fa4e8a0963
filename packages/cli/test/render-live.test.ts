import type { RunEvent } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { createJsonView, createTextView, type RunEnd, type RunOutcome, type RunView } from "../src/render/live.js";
import { formatCost, formatCount, formatDuration, formatUsage, streamSafe, toolSubject } from "../src/render/run-format.js";
import { ANSI } from "../src/render/style.js";

const S = "sess-1";
const USAGE = { input: 5230, output: 412, reasoning: 0, cacheRead: 4100, cacheWrite: 0 };

function capture(tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (t: string) => void out.push(t), isTTY: tty },
    stderr: { write: (t: string) => void err.push(t), isTTY: tty },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

const token = (content: string): RunEvent => ({ type: "token", session_id: S, content });
const reasoning = (content: string): RunEvent => ({ type: "reasoning", session_id: S, content });
const toolStart = (call_id: string, tool: string, input: unknown): RunEvent => ({
  type: "tool_start",
  session_id: S,
  call_id,
  tool,
  input: JSON.stringify(input),
  motivation: "",
});
const toolEnd = (call_id: string, tool: string, output: string, is_error = false, duration_ms = 12): RunEvent => ({
  type: "tool_end",
  session_id: S,
  call_id,
  tool,
  output,
  cached: false,
  is_error,
  duration_ms,
});

function outcome(over: Partial<RunOutcome> = {}): RunOutcome {
  return { sessionId: S, status: "done", steps: 3, usage: USAGE, cost: 0.0153, ...over };
}

const NEXT: RunEnd["session"] = {
  id: S,
  next: [
    ["continue", `arbor run --session ${S} "…"`],
    ["inspect", `arbor sessions show ${S}`],
  ],
};

function play(view: RunView, events: RunEvent[]): void {
  for (const e of events) view.event(e);
}

describe("text view", () => {
  it("streams text, marks reasoning, draws one line per tool call and ends with usage and the session", () => {
    const io = capture();
    const view = createTextView(io);
    play(view, [
      { type: "llm_start", session_id: S, call_id: "l1", node: "build", model: "m", input: "", motivation: "" },
      reasoning("Look at the "),
      reasoning("code first."),
      token("I'll read "),
      token("it."),
      toolStart("c1", "read", { path: "src/a.ts" }),
      toolEnd("c1", "read", "1 export const a = 1;"),
      toolStart("c2", "edit", { path: "src/a.ts", oldString: "x", newString: "y" }),
      toolEnd("c2", "edit", "oldString was not found in src/a.ts; the file is unchanged.\nMore.", true, 3),
      toolStart("c3", "bash", { command: "npm test", description: "Run the tests" }),
      toolEnd("c3", "bash", "1 failing\n\n[exit code: 1]", false, 1450),
      token("Fixed."),
      { type: "done", session_id: S },
    ]);
    view.end({ outcome: outcome(), elapsedMs: 2100, session: NEXT });
    expect(io.out()).toBe(
      [
        "thinking: Look at the code first.",
        "I'll read it.",
        "✓ read src/a.ts 12 ms",
        "✗ edit src/a.ts 3 ms — oldString was not found in src/a.ts; the file is unchanged.",
        "✓ bash npm test 1.4 s exit 1",
        "Fixed.",
        "",
        "✓ done · 3 steps · 2.1 s · 5,230 in (4,100 cached) · 412 out tokens · $0.0153",
        `session ${S}`,
        `  continue: arbor run --session ${S} "…"`,
        `  inspect:  arbor sessions show ${S}`,
        "",
      ].join("\n"),
    );
    expect(io.err()).toBe("");
  });

  it('says "price unknown" rather than $0 when a model has no known price', () => {
    const io = capture(false);
    const view = createTextView(io, { live: false });
    play(view, [token("Hi."), { type: "done", session_id: S }]);
    view.end({ outcome: outcome({ cost: 0, costKnown: false }), elapsedMs: 2100, session: NEXT });
    expect(io.out()).toContain("✓ done · 3 steps · 2.1 s · 5,230 in (4,100 cached) · 412 out tokens · price unknown\n");
    expect(io.out()).not.toContain("$0");
  });

  it("finishes a running tool's line in place on a terminal, and starts a new one when output came between", () => {
    const io = capture(true);
    const view = createTextView(io, { live: true });
    play(view, [
      toolStart("c1", "list", {}),
      toolEnd("c1", "list", "a.ts", false, 2),
      toolStart("c2", "grep", { pattern: "TODO", path: "src" }),
      toolStart("c3", "glob", { pattern: "*.md" }),
      toolEnd("c2", "grep", "none", false, 5),
      toolEnd("c3", "glob", "README.md", false, 6),
    ]);
    expect(io.out()).toBe(
      [
        "… list .\r\u001b[K✓ list . 2 ms",
        "… grep TODO in src",
        "… glob *.md",
        "✓ grep TODO in src 5 ms",
        "✓ glob *.md 6 ms",
        "",
      ].join("\n"),
    );
  });

  it("shows a running tool's progress on its own line and ends it in place", () => {
    const io = capture(true);
    const view = createTextView(io, { live: true });
    play(view, [
      toolStart("c1", "mcp__ev__long", {}),
      { type: "tool_progress", session_id: "s", call_id: "c1", tool: "mcp__ev__long", title: "1/2" },
      { type: "tool_progress", session_id: "s", call_id: "other", tool: "x", title: "ignored" },
      toolEnd("c1", "mcp__ev__long", "ok", false, 2),
    ]);
    expect(io.out()).toBe("… mcp__ev__long\r\u001b[K… mcp__ev__long 1/2\r\u001b[K✓ mcp__ev__long 2 ms\n");
  });

  it("shows a running command's latest output line in place of its title", () => {
    const io = capture(true);
    const view = createTextView(io, { live: true });
    play(view, [
      toolStart("c1", "bash", {}),
      {
        type: "tool_progress",
        session_id: "s",
        call_id: "c1",
        tool: "bash",
        title: "npm test",
        metadata: { output: "compiling\n3 passed\n", lines: 2 },
      },
      toolEnd("c1", "bash", "ok", false, 2),
    ]);
    expect(io.out()).toBe("… bash\r\u001b[K… bash 3 passed\r\u001b[K✓ bash 2 ms\n");
  });

  it("dims reasoning and colours statuses with ANSI", () => {
    const io = capture(true);
    const view = createTextView(io, { style: ANSI });
    play(view, [reasoning("hmm"), toolStart("c1", "read", { path: "a" }), toolEnd("c1", "read", "x")]);
    expect(io.out()).toContain("\u001b[2mhmm\u001b[22m");
    expect(io.out()).toContain("\u001b[32m✓\u001b[39m read a");
  });

  it("never passes control characters from the model to the terminal", () => {
    const io = capture();
    const view = createTextView(io);
    play(view, [token("a\u001b[2Jb\tc\nd\u0007")]);
    expect(io.out()).toBe("a[2Jb\tc\nd");
  });

  it("says how asks were answered: --yes on stdout, a denial on stderr", () => {
    const io = capture();
    const view = createTextView(io);
    view.event(token("Reading"));
    view.answered({ permission: "read", patterns: [".env"] }, "once", "yes");
    view.answered({ permission: "external_directory", patterns: ["/etc/*"] }, "reject", "nobody");
    view.answered({ permission: "bash", patterns: ["rm -rf x"] }, "once", "user");
    expect(io.out()).toBe("Reading\n? read .env → allowed once (--yes)\n");
    expect(io.err()).toBe("permission external_directory for /etc/* denied: no one to ask; rerun with --yes to allow\n");
  });

  it("reports a run refused before it began with its error only", () => {
    const io = capture();
    const view = createTextView(io);
    view.event({
      type: "error",
      session_id: S,
      content: "No API key for openai/gpt-4o: set OPENAI_API_KEY.",
      code: "missing_api_key",
    });
    const failed = outcome({
      status: "error",
      steps: 0,
      usage: { ...USAGE, input: 0, output: 0, cacheRead: 0 },
      cost: 0,
      error: { code: "missing_api_key", message: "No API key for openai/gpt-4o: set OPENAI_API_KEY." },
    });
    view.end({ outcome: failed, elapsedMs: 3 });
    expect(io.out()).toBe("");
    expect(io.err()).toBe("error: No API key for openai/gpt-4o: set OPENAI_API_KEY.\n");
  });

  it("ends a failed, an aborted and a stopped run with what happened and where the session is", () => {
    const failed = capture();
    createTextView(failed).end({
      outcome: outcome({ status: "error", steps: 1, error: { code: "provider_error", message: "400 bad request" } }),
      elapsedMs: 50,
      session: NEXT,
    });
    expect(failed.err()).toBe("error: 400 bad request\n");
    expect(failed.out()).toMatch(/^✗ failed · 1 step · 50 ms · .*\nsession sess-1\n/);

    const aborted = capture();
    const view = createTextView(aborted);
    view.event(token("partial"));
    view.end({ outcome: outcome({ status: "aborted" }), elapsedMs: 61_000, session: NEXT });
    expect(aborted.out()).toMatch(/^partial\n\n■ aborted · 3 steps · 1 m 01 s · /);

    const stopped = capture();
    createTextView(stopped).end({ outcome: outcome({ stopReason: "max_turns" }), elapsedMs: 5, session: NEXT });
    expect(stopped.out()).toContain("stopped at the turn limit (--max-turns)");
  });
});

describe("JSON lines view", () => {
  it("writes every event as one JSON line and adds nothing when the stream ended itself", () => {
    const io = capture();
    const view = createJsonView(io);
    const events = [
      token("hi"),
      toolStart("c1", "read", { path: "a" }),
      toolEnd("c1", "read", "x"),
      { type: "done", session_id: S },
    ];
    play(view, events as RunEvent[]);
    view.end({ outcome: outcome({ text: "hi" }), elapsedMs: 1, session: NEXT });
    const lines = io.out().trimEnd().split("\n");
    // The stream's `done` comes last, carrying the run's result.
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      ...events.slice(0, -1),
      { type: "done", session_id: S, status: "done", steps: 3, usage: USAGE, cost: 0.0153, text: "hi" },
    ]);
    expect(io.err()).toBe("");
  });

  it("ends with an error line when the stream had no terminal event, and says the error on stderr", () => {
    const aborted = capture();
    createJsonView(aborted).end({ outcome: outcome({ status: "aborted" }), elapsedMs: 1 });
    expect(JSON.parse(aborted.out())).toEqual({ type: "error", session_id: S, content: "The run was aborted.", code: "aborted" });

    const failed = capture();
    const view = createJsonView(failed);
    view.event({ type: "error", session_id: S, content: "boom", code: "provider_error" });
    view.end({ outcome: outcome({ status: "error", error: { code: "provider_error", message: "boom" } }), elapsedMs: 1 });
    expect(failed.out().trimEnd().split("\n")).toHaveLength(1);
    expect(failed.err()).toBe("error: boom\n");

    const done = capture();
    createJsonView(done).end({ outcome: outcome({ stopReason: "max_turns", costKnown: false }), elapsedMs: 1 });
    expect(JSON.parse(done.out())).toEqual({
      type: "done",
      session_id: S,
      status: "done",
      stop_reason: "max_turns",
      steps: 3,
      usage: USAGE,
      cost: 0.0153,
      cost_known: false,
      text: "",
    });
  });

  it("keeps stdout for events: a denied ask is said on stderr", () => {
    const io = capture();
    createJsonView(io).answered({ permission: "read", patterns: [".env"] }, "reject", "nobody");
    expect(io.out()).toBe("");
    expect(io.err()).toBe("permission read for .env denied: no one to ask; rerun with --yes to allow\n");
  });
});

describe("run formatting helpers", () => {
  it("names what a tool call acts on", () => {
    expect(toolSubject("read", '{"path":"src/a.ts","offset":3}')).toBe("src/a.ts");
    expect(toolSubject("bash", '{"command":"npm test\\n  --watch=false","description":"Run"}')).toBe("npm test --watch=false");
    expect(toolSubject("list", "{}")).toBe(".");
    expect(toolSubject("grep", '{"pattern":"TODO"}')).toBe("TODO");
    expect(toolSubject("todowrite", '{"todos":[{},{}]}')).toBe("2 todos");
    expect(toolSubject("fetch", '{"url":"https://example.com"}')).toBe("https://example.com");
    expect(toolSubject("custom", '{"n":1}')).toBe("");
    expect(toolSubject("read", "{not json")).toBe("{not json");
    expect(toolSubject("read", JSON.stringify({ path: "x".repeat(200) }), 20)).toHaveLength(20);
  });

  it("formats durations, costs and token usage", () => {
    expect([0, 12, 999, 1000, 1450, 59_949, 60_000, 125_000].map(formatDuration)).toEqual([
      "0 ms",
      "12 ms",
      "999 ms",
      "1.0 s",
      "1.4 s",
      "59.9 s",
      "1 m 00 s",
      "2 m 05 s",
    ]);
    expect([0, 0.01534, 1.5].map(formatCost)).toEqual(["$0.0000", "$0.0153", "$1.50"]);
    expect(formatUsage({ input: 10, output: 2, reasoning: 0, cacheRead: 0, cacheWrite: 0 })).toBe("10 in · 2 out tokens");
    expect(formatUsage({ input: 1200, output: 300, reasoning: 100, cacheRead: 1000, cacheWrite: 0 })).toBe(
      "1,200 in (1,000 cached) · 300 out (100 reasoning) tokens",
    );
    expect(streamSafe("a\r\nb\u009bc")).toBe("a\nbc");
  });

  it("group counts by thousands as en-US does", () => {
    const counts = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 1_234_567_890, -1_234_567, 1234.5, 999.6];
    expect(counts.map(formatCount)).toEqual(counts.map((n) => Math.round(n).toLocaleString("en-US")));
  });
});

describe("tool lines on a narrow terminal", () => {
  it("cut the subject, not the status, so the line fits; escapes do not count", () => {
    for (const style of [undefined, ANSI]) {
      const io = capture(true);
      const view = createTextView(io, { columns: 40, ...(style ? { style } : {}) });
      view.event(toolStart("c1", "bash", { command: "node scripts/a-rather-long-script-name.js --flag" }));
      view.event(toolEnd("c1", "bash", "boom\n\n[exit code: 2]", false, 1234));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes
      const line = io.out().replace(/\u001b\[[0-9;]*m/g, "");
      expect(line).toBe("✓ bash node scripts/a-rat… 1.2 s exit 2\n");
      expect(line.trimEnd().length).toBeLessThanOrEqual(40);
    }
  });
});

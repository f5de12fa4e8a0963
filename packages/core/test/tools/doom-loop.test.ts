import { describe, expect, it } from "vitest";
import {
  callKey,
  describeDoomLoop,
  detectDoomLoop,
  doomLoopRequest,
  type LoopStep,
  stableJson,
} from "../../src/tools/doom-loop.js";

const call = (tool: string, input: unknown = {}): LoopStep => ({ kind: "tool", tool, input });
const text = (t: string): LoopStep => ({ kind: "text", text: t });
const A = call("read", { path: "a.ts" });
const B = call("edit", { path: "a.ts", oldString: "x", newString: "y" });
/** The cycle A, B as the guard reports its unit. */
const READ_EDIT = [
  { tool: "read", input: { path: "a.ts" } },
  { tool: "edit", input: { path: "a.ts", oldString: "x", newString: "y" } },
];
const C = call("bash", { command: "npm test" });
const LONG = "I will now read the file again to make sure the change is there.";

describe("detectDoomLoop", () => {
  it("catches the same call three times in a row, across messages and text in between", () => {
    expect(detectDoomLoop([A, A, A])).toEqual({ kind: "repeat", call: { tool: "read", input: { path: "a.ts" } }, count: 3 });
    expect(detectDoomLoop([A, text("Let me look again."), A, text("Once more."), A])?.kind).toBe("repeat");
  });

  it("compares inputs by value, ignoring key order", () => {
    expect(
      detectDoomLoop([
        call("grep", { a: 1, b: [1, { c: 2, d: 3 }] }),
        call("grep", { b: [1, { d: 3, c: 2 }], a: 1 }),
        call("grep", { a: 1, b: [1, { c: 2, d: 3 }] }),
      ])?.kind,
    ).toBe("repeat");
    expect(stableJson({ b: 1, a: undefined, c: null })).toBe('{"b":1,"c":null}');
  });

  it("does not fire on two repeats, on different inputs, or when the repeat is not at the end", () => {
    expect(detectDoomLoop([A, A])).toBeUndefined();
    expect(detectDoomLoop([A, call("read", { path: "b.ts" }), A])).toBeUndefined();
    expect(detectDoomLoop([A, A, A, B])).toBeUndefined();
    expect(detectDoomLoop([])).toBeUndefined();
  });

  it("catches cycles of period 2 and 3", () => {
    expect(detectDoomLoop([A, B, A, B, A, B])).toEqual({
      kind: "cycle",
      period: 2,
      unit: READ_EDIT,
      repeats: 3,
    });
    expect(detectDoomLoop([C, A, B, C, A, B, C, A, B, C])).toMatchObject({ kind: "cycle", period: 3, repeats: 3 });
    expect(detectDoomLoop([A, A, B, A, A, B, A, A, B])).toMatchObject({ kind: "cycle", period: 3 });
  });

  it("does not call a short or broken cycle a loop", () => {
    expect(detectDoomLoop([A, B, A, B])).toBeUndefined();
    expect(detectDoomLoop([A, B, A, C, A, B])).toBeUndefined();
    expect(detectDoomLoop([A, B, C, A, B, C, A, B])).toBeUndefined();
    // Period 4 is beyond the default; a longer period can be asked for.
    const four = [A, B, C, call("glob"), A, B, C, call("glob"), A, B, C, call("glob")];
    expect(detectDoomLoop(four)).toBeUndefined();
    expect(detectDoomLoop(four, { maxPeriod: 4 })).toMatchObject({ kind: "cycle", period: 4 });
  });

  it("reports the simplest explanation", () => {
    expect(detectDoomLoop([A, A, A, A, A, A])?.kind).toBe("repeat");
  });

  it("catches the same assistant text three times, ignoring short connective phrases", () => {
    expect(detectDoomLoop([text(LONG), A, text(` ${LONG}\n`), B, text(LONG), C])).toEqual({ kind: "text", text: LONG, count: 3 });
    expect(detectDoomLoop([text("Let me check."), A, text("Let me check."), B, text("Let me check."), C])).toBeUndefined();
    expect(detectDoomLoop([text(LONG), text(`${LONG}!`), text(LONG)])).toBeUndefined();
  });

  it("looks only at the newest calls and texts, and uses a key recorded with the call", () => {
    // A long history whose old part is a loop that already ended: only the end decides.
    const old = [A, A, A, text(LONG), text(LONG), text(LONG)];
    expect(detectDoomLoop([...old, B, text(`${LONG} Now the edit.`), C, A, B])).toBeUndefined();
    expect(detectDoomLoop([...old, B, C, B, C, B, C])?.kind).toBe("cycle");
    const keyed = (input: unknown): LoopStep => ({ kind: "tool", tool: "read", input, key: callKey("read", { path: "a.ts" }) });
    expect(detectDoomLoop([keyed({ n: 1 }), keyed({ n: 2 }), keyed({ n: 3 })])?.kind).toBe("repeat");
    expect(callKey("read", { b: 1, a: 2 })).toBe(callKey("read", { a: 2, b: 1 }));
  });

  it("honours a custom threshold", () => {
    expect(detectDoomLoop([A, A], { threshold: 2 })?.kind).toBe("repeat");
    expect(detectDoomLoop([A, A, A], { threshold: 4 })).toBeUndefined();
  });
});

describe("doomLoopRequest", () => {
  it("asks doom_loop for the tools involved and describes the loop", () => {
    const cycle = detectDoomLoop([A, B, A, B, A, B])!;
    expect(doomLoopRequest(cycle)).toEqual({ permission: "doom_loop", patterns: ["read", "edit"], metadata: { loop: cycle } });
    expect(describeDoomLoop(cycle)).toBe("The same 2 calls (read → edit) repeated 3 times.");
    const repeat = detectDoomLoop([A, A, A])!;
    expect(doomLoopRequest(repeat).patterns).toEqual(["read"]);
    expect(describeDoomLoop(repeat)).toBe("The same call (read with the same input) was made 3 times in a row.");
    const same = detectDoomLoop([text(LONG), text(LONG), text(LONG)])!;
    expect(doomLoopRequest(same).patterns).toEqual(["*"]);
    expect(describeDoomLoop(same)).toBe("The same reply was written 3 times in a row.");
  });
});

/** The keying as first written (entries filtered and sorted, arrays mapped): the faster one must say the same. */
function stableJsonAsWritten(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(stableJsonAsWritten).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJsonAsWritten(v)}`).join(",")}}`;
}

describe("stableJson keys", () => {
  it("as the first keying did, for every shape a call's input takes", () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is one of the shapes
    const sparse = [1, , 3];
    const values: unknown[] = [
      {},
      [],
      { b: 1, a: [1, { d: undefined, c: null }], "": "x", Z: true, é: "é", "10": 1, "9": 2 },
      { path: "a.ts", n: 3, query: 'q"\\\n' },
      [undefined, null, 0, -0, Number.NaN, "s", [[]]],
      sparse,
      { a: undefined },
      "text",
      42,
      null,
    ];
    for (const value of values) expect(stableJson(value)).toBe(stableJsonAsWritten(value));
  });
});

describe("detectDoomLoop over a long history", () => {
  it("finds a loop only at the end, and reports its unit in call order", () => {
    const D = call("grep", { q: "x" });
    expect(detectDoomLoop([A, B, A, B, A, B, C])).toBeUndefined();
    expect(detectDoomLoop([C, A, D, B, A, D, B, A, D, B])).toEqual({
      kind: "cycle",
      period: 3,
      unit: [
        { tool: "read", input: { path: "a.ts" } },
        { tool: "grep", input: { q: "x" } },
        { tool: "edit", input: { path: "a.ts", oldString: "x", newString: "y" } },
      ],
      repeats: 3,
    });
    expect(detectDoomLoop([A, B, A, text(LONG), B, A, B])).toEqual({
      kind: "cycle",
      period: 2,
      unit: READ_EDIT,
      repeats: 3,
    });
  });
});

/** The detection as first written (lists of the newest calls and texts, compared by slices): the faster one must agree. */
function detectAsWritten(steps: readonly LoopStep[]): ReturnType<typeof detectDoomLoop> {
  const threshold = 3;
  const maxPeriod = 3;
  const calls: Array<{ tool: string; input: unknown; key: string }> = [];
  const texts: string[] = [];
  for (let i = steps.length - 1; i >= 0 && (calls.length < maxPeriod * threshold || texts.length < threshold); i--) {
    const step = steps[i]!;
    if (step.kind === "tool") {
      if (calls.length < maxPeriod * threshold)
        calls.push({ tool: step.tool, input: step.input, key: callKey(step.tool, step.input) });
    } else if (texts.length < threshold && step.text.trim().length >= 40) texts.push(step.text.trim());
  }
  calls.reverse();
  texts.reverse();
  for (let period = 1; period <= maxPeriod; period++) {
    const span = period * threshold;
    if (calls.length < span) break;
    const window = calls.slice(-span);
    let periodic = true;
    for (let i = period; i < span && periodic; i++) periodic = window[i]!.key === window[i - period]!.key;
    if (!periodic) continue;
    const unit = window.slice(0, period);
    if (period > 1 && unit.every((c) => c.key === unit[0]!.key)) continue;
    const strip = ({ tool, input }: { tool: string; input: unknown }) => ({ tool, input });
    if (period === 1) return { kind: "repeat", call: strip(unit[0]!), count: threshold };
    return { kind: "cycle", period, unit: unit.map(strip), repeats: threshold };
  }
  if (texts.length >= threshold) {
    const last = texts.slice(-threshold);
    if (last.every((t) => t === last[0])) return { kind: "text", text: last[0]!, count: threshold };
  }
  return undefined;
}

describe("detectDoomLoop against the detection as first written", () => {
  it("agrees on thousands of histories drawn from a few calls and texts", () => {
    const pool: LoopStep[] = [A, B, C, call("read", { path: "a.ts" }), text(LONG), text(`${LONG} Again.`), text("Short.")];
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    let loops = 0;
    for (let n = 0; n < 20_000; n++) {
      // Drawn from the first `span` of the pool: short spans repeat more, so loops of every kind come up.
      const span = 2 + (next() % (pool.length - 1));
      const steps = Array.from({ length: next() % 16 }, () => pool[next() % span]!);
      const expected = detectAsWritten(steps);
      if (expected) loops++;
      expect(detectDoomLoop(steps)).toEqual(expected);
    }
    // The draw must hold loops of each kind for the comparison to mean something.
    expect(loops).toBeGreaterThan(500);
  });
});

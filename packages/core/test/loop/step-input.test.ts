import { describe, expect, it } from "vitest";
import { INPUT_SHOWN, lastInput, outputJson } from "../../src/loop/step-input.js";
import { cutText } from "../../src/model/text.js";
import type { ContextState } from "../../src/session/context.js";

/** What the input shown used to be: every part's text, the tool results as whole JSON, cut. */
function wholeInput(content: readonly Record<string, unknown>[]): string {
  let text = "";
  for (const p of content) {
    text += "text" in p ? String(p.text) : p.type === "tool-result" ? (JSON.stringify(p.output) ?? "") : "";
    if (text.length > INPUT_SHOWN) break;
  }
  return cutText(text, INPUT_SHOWN);
}

function stateWith(content: readonly Record<string, unknown>[]): Pick<{ state: ContextState }, "state"> {
  const message = { role: "tool", content } as unknown as ContextState["items"][number]["message"];
  return { state: { items: [{ entryId: "e1", message }], length: 1 } as unknown as ContextState };
}

const result = (output: unknown) => ({ type: "tool-result", toolCallId: "c1", toolName: "read", output });

/** Strings that stress the cut: escapes, control characters, quotes, and surrogate pairs on every boundary. */
function samples(): string[] {
  const pieces = ["a", '"', "\\", "\n", "\u0001", "é", "😀", "\ud800", "\udc00", "</", " "];
  const out: string[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let n = 0; n < 200; n++) {
    let s = "";
    const length = 1990 + (next() % 40);
    while (s.length < length) s += pieces[next() % pieces.length];
    out.push(s);
  }
  out.push("😀".repeat(1500), `${"x".repeat(1976)}😀tail`, `${"x".repeat(1975)}😀tail`, "y".repeat(50_000));
  return out;
}

describe("the input llm_start shows", () => {
  it("is the cut of the whole JSON of a tool result, however long the result and whatever it holds", () => {
    for (const value of samples()) {
      for (const output of [
        { type: "text", value },
        { type: "error-text", value },
      ]) {
        const content = [result(output)];
        expect(lastInput(stateWith(content))).toBe(wholeInput(content));
      }
    }
  });

  it("is the same with text before the result, several results, and shapes it does not cut short", () => {
    const long = "z".repeat(3000);
    const contents = [
      [{ type: "text", text: "x".repeat(1500) }, result({ type: "text", value: long })],
      [result({ type: "text", value: "short" }), result({ type: "error-text", value: long })],
      [result({ value: long, type: "text" })],
      [result({ type: "json", value: { long } })],
      [result({ type: "text", value: long, extra: 1 })],
      [result({ type: "text", value: "ok" })],
    ];
    for (const content of contents) expect(lastInput(stateWith(content))).toBe(wholeInput(content));
  });

  it("agrees with the whole JSON in more than the characters it has room for", () => {
    const value = `${"a".repeat(10)}"\\😀${"b".repeat(5000)}`;
    const whole = JSON.stringify({ type: "text", value });
    for (const room of [0, 1, 11, 12, 13, 14, 15, 40, 2000]) {
      const shown = outputJson({ type: "text", value }, room);
      expect(shown.length).toBeGreaterThan(room);
      expect(shown.slice(0, room + 1)).toBe(whole.slice(0, room + 1));
    }
    expect(outputJson({ type: "text", value: "ok" }, 10)).toBe(JSON.stringify({ type: "text", value: "ok" }));
  });
});

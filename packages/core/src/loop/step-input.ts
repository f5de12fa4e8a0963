import { cutText } from "../model/text.js";
import type { RunContext } from "./run-context.js";

/** Characters of the input `llm_start` and `llm_end` show. */
export const INPUT_SHOWN = 2000;

/** What `llm_start` shows as the input: the last message the model is answering, cut. */
export function lastInput(ctx: Pick<RunContext, "state">): string {
  const last = ctx.state.items[ctx.state.length - 1]?.message;
  if (!last) return "";
  // Parts past the cut are not turned into text: nothing of them would be kept.
  let text = "";
  for (const p of last.content) {
    text += "text" in p ? p.text : p.type === "tool-result" ? outputJson(p.output, INPUT_SHOWN - text.length) : "";
    if (text.length > INPUT_SHOWN) break;
  }
  return cutText(text, INPUT_SHOWN);
}

const HIGH_SURROGATE_MIN = 0xd800;
const HIGH_SURROGATE_MAX = 0xdbff;

/**
 * `JSON.stringify(output)`, or, for a text result longer than `room`, a string whose first
 * `room + 1` characters are those of it (all that the cut to `room` looks at). A step's input is
 * usually the previous step's tool result, and turning all of it into JSON to keep its first 2,000
 * characters copied the whole output every step. Only the plain shape (`type` then `value`: the
 * loop's own, and what the store gives back) is made short; any other is stringified whole.
 */
export function outputJson(output: unknown, room: number): string {
  if (typeof output !== "object" || output === null) return JSON.stringify(output) ?? "";
  const o = output as { type?: unknown; value?: unknown; toJSON?: unknown };
  if (
    (o.type !== "text" && o.type !== "error-text") ||
    typeof o.value !== "string" ||
    o.value.length <= room ||
    typeof o.toJSON === "function" ||
    !startsWithTypeValue(o)
  ) {
    return JSON.stringify(output) ?? "";
  }
  // The value's first `room + 1` characters are written as in the whole (escaping goes character by
  // character), after the type, so more than `room` characters agree; what follows them does not
  // (the value's closing quote comes early). A surrogate pair must not be split: half of one is
  // escaped (`\ud83d`), the whole is not.
  let end = Math.max(0, room) + 1;
  const last = o.value.charCodeAt(end - 1);
  if (last >= HIGH_SURROGATE_MIN && last <= HIGH_SURROGATE_MAX) end++;
  return JSON.stringify({ type: o.type, value: o.value.slice(0, end) });
}

/** Whether the object's first keys, in the order JSON.stringify writes them, are `type` then `value`. */
function startsWithTypeValue(o: object): boolean {
  let i = 0;
  for (const key in o) {
    if (!Object.hasOwn(o, key)) return false;
    if (i === 0 && key !== "type") return false;
    if (i === 1) return key === "value";
    i++;
  }
  return false;
}

import type { PendingElicitation } from "@arbor/core/session";
import type { Io } from "../io.js";
import type { RunView } from "../render/live.js";
import { oneLine } from "../render/text.js";
import { urlPrompt } from "./elicitations.js";

type FormElicitation = Extract<PendingElicitation, { mode: "form" }>;
type Form = FormElicitation["requestedSchema"];
type Field = Form["properties"][string];
/** A field's value as the elicitation's content holds it. */
export type FieldValue = string | number | boolean | string[];

/** A field's choices (an enum, or titled `oneOf`/`anyOf` consts), each with what it is shown as. */
function choicesOf(field: Field): Array<{ value: string; label: string }> | undefined {
  const titled = (list: Array<{ const?: unknown; title?: unknown }> | undefined) =>
    list?.map((o) => ({ value: String(o.const), label: typeof o.title === "string" ? o.title : String(o.const) }));
  const plain = (list: unknown[] | undefined) => list?.map((v) => ({ value: String(v), label: String(v) }));
  if (field.type === "array") {
    const items = field.items as { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: unknown }> } | undefined;
    return plain(items?.enum) ?? titled(items?.anyOf);
  }
  return plain(field.enum) ?? titled(field.oneOf as Array<{ const?: unknown; title?: unknown }> | undefined);
}

/** A server's words in a question: brackets would read as answer keys ("[a]ccept"). */
const plain = (text: string) => oneLine(text).replace(/\[/g, "(").replace(/\]/g, ")");

function shown(value: unknown): string {
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The line a field is asked with: its title, what it takes, its choices, and what Enter does. */
export function fieldQuestion(name: string, field: Field, required: boolean): string {
  const title = plain(typeof field.title === "string" && field.title !== "" ? `${field.title} (${name})` : name);
  const choices = choicesOf(field);
  const takes =
    choices !== undefined
      ? `${field.type === "array" ? "one or more, by number, separated by commas" : "one, by number"}: ${choices
          .map((c, i) => `${i + 1}) ${plain(c.label)}`)
          .join("  ")}`
      : field.type === "boolean"
        ? "y/n"
        : field.type === "integer"
          ? "a whole number"
          : field.type === "number"
            ? "a number"
            : "text";
  const enter =
    field.default !== undefined ? `Enter keeps ${shown(field.default)}` : required ? "required" : "Enter leaves it out";
  const about = typeof field.description === "string" && field.description !== "" ? `\n    ${plain(field.description)}` : "";
  return `  ${title}: ${takes} (${enter})${about}\n  › `;
}

/**
 * A typed line as the field's value; `undefined` for an empty line (the default, or left out);
 * an error message when it does not fit.
 */
export function parseField(field: Field, typed: string): { value: FieldValue | undefined } | { error: string } {
  const line = typed.trim();
  if (line === "") return { value: undefined };
  const choices = choicesOf(field);
  if (choices !== undefined) {
    const pick = (word: string) => {
      const n = Number(word);
      if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]?.value;
      return choices.find((c) => c.value.toLowerCase() === word.toLowerCase() || c.label.toLowerCase() === word.toLowerCase())
        ?.value;
    };
    const words = field.type === "array" ? line.split(",").map((w) => w.trim()) : [line];
    const picked = words.map(pick);
    if (picked.some((p) => p === undefined)) return { error: `choose from 1 to ${choices.length}` };
    return { value: field.type === "array" ? (picked as string[]) : (picked[0] as string) };
  }
  switch (field.type) {
    case "boolean": {
      const yes = ["y", "yes", "true"].includes(line.toLowerCase());
      if (!yes && !["n", "no", "false"].includes(line.toLowerCase())) return { error: "answer y or n" };
      return { value: yes };
    }
    case "number":
    case "integer": {
      const n = Number(line);
      if (!Number.isFinite(n)) return { error: "type a number" };
      if (field.type === "integer" && !Number.isInteger(n)) return { error: "type a whole number" };
      return { value: n };
    }
    case "array":
      return { value: line.split(",").map((w) => w.trim()) };
    default:
      return { value: line };
  }
}

/**
 * Asks a form's fields one by one, each typed per its schema (text, numbers, y/n, choices by number)
 * and asked again until it fits; an empty line keeps the field's default or leaves it out. Resolves
 * with the content (fields left out take the form's defaults when answered), or undefined when the
 * prompt was closed (end of input, the call gone).
 */
export async function askFields(
  prompt: NonNullable<Io["prompt"]>,
  form: Form,
  signal: AbortSignal,
): Promise<Record<string, FieldValue> | undefined> {
  const content: Record<string, FieldValue> = {};
  const required = new Set(form.required ?? []);
  for (const [name, field] of Object.entries(form.properties)) {
    let note = "";
    for (;;) {
      const typed = await prompt(`${note}${fieldQuestion(name, field, required.has(name))}`, signal);
      if (typed === undefined || signal.aborted) return undefined;
      const parsed = parseField(field, typed);
      if ("error" in parsed) {
        note = `  (${parsed.error})\n`;
        continue;
      }
      if (parsed.value === undefined && required.has(name) && field.default === undefined) {
        note = `  (${name} is required)\n`;
        continue;
      }
      if (parsed.value !== undefined) content[name] = parsed.value;
      break;
    }
  }
  return content;
}

/** The form's question before its fields: the server, its message, the fields it wants, and accept or decline. */
export function formPrompt(e: FormElicitation): string {
  const names = Object.entries(e.requestedSchema.properties).map(([name, f]) =>
    typeof f.title === "string" && f.title !== "" ? f.title : name,
  );
  return [
    `? MCP server ${e.server} asks: ${plain(e.message)}`,
    `  Fields: ${plain(names.join(", ")) || "none"}`,
    "  [a]ccept (fill in the form) / [d]ecline: ",
  ].join("\n");
}

const ACCEPT: Readonly<Record<string, boolean>> = {
  a: true,
  accept: true,
  y: true,
  yes: true,
  d: false,
  decline: false,
  n: false,
  no: false,
};

/** Unclear answers, or a form filled in that the server's schema refuses, are asked again this many times. */
const MAX_TRIES = 3;

/** Answers an ask by its id as every door does (`runtime.asks.answer`). */
export type AnswerAsk = (id: string, allow: boolean, content?: Record<string, FieldValue>) => Promise<unknown>;

/**
 * Who answers MCP servers' elicitations where a person is at the keyboard (`arbor chat`): a URL one
 * is accepted (the person opens the page) or declined; a form's fields are asked one by one and sent
 * through `answer`, so a form the server's schema refuses is said and asked again. An ask answered
 * elsewhere first is said, not retried. Resolves undefined: the answer is in the store already.
 */
export function createFormElicitationHandler(opts: {
  prompt: NonNullable<Io["prompt"]>;
  view: RunView;
  say(line: string): void;
  answer: AnswerAsk;
}): (pending: PendingElicitation, signal: AbortSignal) => Promise<undefined> {
  const { prompt } = opts;
  const send = async (id: string, allow: boolean, content?: Record<string, FieldValue>): Promise<"sent" | "refused" | "gone"> => {
    try {
      await opts.answer(id, allow, content);
      return "sent";
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      opts.say(err instanceof Error ? err.message : String(err));
      return code === "invalid_input" ? "refused" : "gone";
    }
  };
  return async (pending, signal) => {
    opts.view.breakLine();
    const question = pending.mode === "url" ? urlPrompt(pending) : formPrompt(pending);
    let accept: boolean | undefined;
    for (let i = 0; i < MAX_TRIES && accept === undefined; i++) {
      const typed = await prompt(question, signal);
      // The call gone, or the prompt closed: the ask stays in the store for another door (or expires).
      if (typed === undefined || signal.aborted) return undefined;
      accept = ACCEPT[typed.trim().toLowerCase()];
    }
    if (accept !== true || pending.mode === "url") {
      await send(pending.id, accept === true);
      return undefined;
    }
    for (let i = 0; i < MAX_TRIES; i++) {
      const content = await askFields(prompt, pending.requestedSchema, signal);
      if (content === undefined) return undefined;
      const sent = await send(pending.id, true, content);
      if (sent !== "refused") return undefined;
    }
    await send(pending.id, false);
    return undefined;
  };
}

import { appendFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The prompt being typed, as plain values: the chat's input box is a view of it. Multi-line: a line
 * ending in `\` or Alt-Enter starts a new line; the arrows walk the text, and past its first or last
 * line, the prompt history.
 */
export interface Draft {
  readonly text: string;
  /** Index into `text`, 0…text.length. */
  readonly cursor: number;
  /** Position in the history while walking it (history.length: the text being typed). */
  readonly historyAt: number;
  /** What was typed before walking the history, given back when walking past its end. */
  readonly saved: string;
}

export const EMPTY_DRAFT: Draft = { text: "", cursor: 0, historyAt: Number.POSITIVE_INFINITY, saved: "" };

export function draftOf(text: string): Draft {
  return { ...EMPTY_DRAFT, text, cursor: text.length };
}

export function insert(d: Draft, s: string): Draft {
  // Pasted text arrives in one piece, with the terminal's \r for its newlines.
  const clean = s.replace(/\r\n?/g, "\n");
  return { ...d, text: d.text.slice(0, d.cursor) + clean + d.text.slice(d.cursor), cursor: d.cursor + clean.length };
}

export function deleteBack(d: Draft): Draft {
  if (d.cursor === 0) return d;
  return { ...d, text: d.text.slice(0, d.cursor - 1) + d.text.slice(d.cursor), cursor: d.cursor - 1 };
}

export function moveCursor(d: Draft, to: "left" | "right" | "home" | "end"): Draft {
  const lineStart = d.text.lastIndexOf("\n", d.cursor - 1) + 1;
  const nl = d.text.indexOf("\n", d.cursor);
  const lineEnd = nl === -1 ? d.text.length : nl;
  const cursor =
    to === "left"
      ? Math.max(0, d.cursor - 1)
      : to === "right"
        ? Math.min(d.text.length, d.cursor + 1)
        : to === "home"
          ? lineStart
          : lineEnd;
  return { ...d, cursor };
}

/** Enter: a line ending in `\` continues on a new line; otherwise the draft is sent. */
export function enter(d: Draft): { draft: Draft; send?: string } {
  const before = d.text.slice(0, d.cursor);
  if (before.endsWith("\\")) return { draft: insert(deleteBack(d), "\n") };
  return { draft: EMPTY_DRAFT, send: d.text };
}

/** Up or down: a line of the draft, or past its first or last line an older or newer prompt. */
export function walk(d: Draft, history: readonly string[], dir: "up" | "down"): Draft {
  const lineStart = d.text.lastIndexOf("\n", d.cursor - 1) + 1;
  const nl = d.text.indexOf("\n", d.cursor);
  if (dir === "up" && lineStart > 0) {
    const prevStart = d.text.lastIndexOf("\n", lineStart - 2) + 1;
    return { ...d, cursor: Math.min(lineStart - 1, prevStart + (d.cursor - lineStart)) };
  }
  if (dir === "down" && nl !== -1) {
    const nextNl = d.text.indexOf("\n", nl + 1);
    return { ...d, cursor: Math.min(nextNl === -1 ? d.text.length : nextNl, nl + 1 + (d.cursor - lineStart)) };
  }
  const at = Math.min(d.historyAt, history.length);
  const next = dir === "up" ? at - 1 : at + 1;
  if (next < 0 || next > history.length) return d;
  const saved = at === history.length ? d.text : d.saved;
  const text = next === history.length ? saved : (history[next] ?? "");
  return { text, cursor: text.length, historyAt: next, saved };
}

/** What Tab did to an `@path` word: the draft with the word completed as far as it is sure, and the choices left. */
export interface Completion {
  draft: Draft;
  choices: string[];
}

const SKIPPED = new Set([".git", "node_modules"]);
const MAX_CHOICES = 8;

/** Completes the `@path` word before the cursor against the workspace's files; directories end in `/`. */
export function completeFile(d: Draft, cwd: string): Completion {
  const word = /(?:^|\s)@(\S*)$/.exec(d.text.slice(0, d.cursor))?.[1];
  if (word === undefined) return { draft: d, choices: [] };
  const slash = word.lastIndexOf("/");
  const dir = word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  let names: string[];
  try {
    names = readdirSync(resolve(cwd, dir || "."), { withFileTypes: true })
      .filter((e) => e.name.startsWith(base) && !SKIPPED.has(e.name) && (base.startsWith(".") || !e.name.startsWith(".")))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort();
  } catch {
    return { draft: d, choices: [] };
  }
  if (names.length === 0) return { draft: d, choices: [] };
  const common = names.reduce((a, b) => {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return a.slice(0, i);
  });
  const completed = insert(d, common.slice(base.length));
  return { draft: completed, choices: names.length === 1 ? [] : names.slice(0, MAX_CHOICES).map((n) => dir + n) };
}

const HISTORY_FILE = "chat-history.jsonl";
const HISTORY_KEPT = 500;

/** The prompts sent in earlier chats, oldest first (one JSON string a line in `$ARBOR_HOME`). */
export function loadHistory(arborHome: string): string[] {
  try {
    return readFileSync(join(arborHome, HISTORY_FILE), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .flatMap((l) => {
        try {
          const v: unknown = JSON.parse(l);
          return typeof v === "string" ? [v] : [];
        } catch {
          return [];
        }
      })
      .slice(-HISTORY_KEPT);
  } catch {
    return [];
  }
}

/** Adds a prompt to the history file; a history that cannot be written is only a lost convenience. */
export function saveToHistory(arborHome: string, prompt: string): void {
  try {
    const file = join(arborHome, HISTORY_FILE);
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(prompt)}\n`);
  } catch {}
}

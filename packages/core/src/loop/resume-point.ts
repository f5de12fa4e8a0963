import type { StreamedToolCall } from "../llm/stream-step.js";
import type { Entry, MessageEntry } from "../model/entry.js";
import type { AssistantMessage } from "../model/message.js";
import { EMPTY_TALLY, type RunTally, tallyEntry } from "./tally.js";

/**
 * Where a run its process left unfinished stands, read from the session's active path. Pure: the
 * journal is the only record of an interrupted run, so everything here is derived from it.
 */
export type ResumePoint =
  /** The last message is the user's: the model has not answered it yet. */
  | { kind: "answer" }
  /** The last answer called tools and some have no result: `open`, in the order the model called them. */
  | { kind: "tools"; messageId: string; open: StreamedToolCall[] }
  /** Every call has its result, or the last answer was cut short: the model speaks next. */
  | { kind: "continue" }
  /** The last answer was complete and called no tool: the run was over, only its end was not recorded. */
  | { kind: "finished"; text: string };

/** What the interrupted run had spent and done, so its budgets continue where they were. */
export interface ResumeTally {
  /** The same fold a live run keeps over the entries it writes. */
  tally: RunTally;
  /** Tool calls the run's answers made, which its per-run call budget counts. */
  toolCalls: number;
}

function isMessage(entry: Entry): entry is MessageEntry {
  return entry.type === "message";
}

function textOf(message: AssistantMessage): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function callsOf(message: AssistantMessage): StreamedToolCall[] {
  return message.content.flatMap((p) =>
    p.type === "tool-call"
      ? [
          {
            toolCallId: p.toolCallId,
            toolName: p.toolName,
            inputText: typeof p.input === "string" ? p.input : JSON.stringify(p.input ?? {}),
          },
        ]
      : [],
  );
}

/** An answer the stream did not complete (an abort or a provider failure kept what had arrived). */
function cutShort(message: AssistantMessage): boolean {
  return message.error !== undefined || message.finishReason === "aborted" || message.finishReason === "error";
}

/** Where the run on `path` stands; undefined when the path holds no message to continue from. */
export function resumePoint(path: readonly Entry[]): ResumePoint | undefined {
  const answered = new Set<string>();
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (!isMessage(entry)) continue;
    const message = entry.message;
    switch (message.role) {
      case "tool":
        for (const part of message.content) answered.add(part.toolCallId);
        continue;
      case "user":
      case "system":
        return { kind: "answer" };
      case "assistant": {
        const calls = callsOf(message);
        const open = calls.filter((c) => !answered.has(c.toolCallId));
        if (open.length > 0) return { kind: "tools", messageId: entry.id, open };
        if (calls.length > 0 || cutShort(message)) return { kind: "continue" };
        return { kind: "finished", text: textOf(message) };
      }
      default: {
        const never: never = message;
        return never;
      }
    }
  }
  return undefined;
}

/** Folds the entries after the run's user message (the last one on the path that is not synthetic). */
export function tallyRun(path: readonly Entry[]): ResumeTally {
  let start = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (isMessage(entry) && entry.message.role === "user" && entry.message.synthetic !== true) {
      start = i + 1;
      break;
    }
  }
  let tally = EMPTY_TALLY;
  let toolCalls = 0;
  for (const entry of path.slice(start)) {
    tally = tallyEntry(tally, entry);
    if (isMessage(entry) && entry.message.role === "assistant") toolCalls += callsOf(entry.message).length;
  }
  return { tally, toolCalls };
}

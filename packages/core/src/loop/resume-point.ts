import type { StreamedToolCall } from "../llm/stream-step.js";
import { addUsage, ZERO_USAGE } from "../llm/usage.js";
import type { Entry, MessageEntry } from "../model/entry.js";
import type { AssistantMessage, TokenUsage } from "../model/message.js";

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
export interface RunTally {
  /** Model calls answered (assistant messages written) since the run's user message. */
  steps: number;
  usage: TokenUsage;
  cost: number;
  /** False when some answer has tokens but no price (an unpriced model). */
  costKnown: boolean;
  toolCalls: number;
  /** The text of the last answer, what the run reports as its text. */
  lastText: string;
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

/** Sums the answers after the run's user message (the last one on the path that is not synthetic). */
export function tallyRun(path: readonly Entry[]): RunTally {
  let start = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (isMessage(entry) && entry.message.role === "user" && entry.message.synthetic !== true) {
      start = i + 1;
      break;
    }
  }
  const tally: RunTally = { steps: 0, usage: { ...ZERO_USAGE }, cost: 0, costKnown: true, toolCalls: 0, lastText: "" };
  for (const entry of path.slice(start)) {
    if (!isMessage(entry) || entry.message.role !== "assistant") continue;
    const message = entry.message;
    tally.steps++;
    tally.toolCalls += callsOf(message).length;
    tally.lastText = textOf(message);
    if (message.tokens) {
      tally.usage = addUsage(tally.usage, message.tokens);
      if (message.cost === undefined) tally.costKnown = false;
    }
    tally.cost += message.cost ?? 0;
  }
  return tally;
}

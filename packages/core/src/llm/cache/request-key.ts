import { createHash } from "node:crypto";
import type { LanguageModelV4CallOptions, LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { oneLine } from "../../model/text.js";
import { canonicalJson } from "./json-value.js";

/** Bumped whenever what goes into a key changes, so old records stop matching instead of matching wrongly. */
export const REQUEST_KEY_VERSION = 1;

/** How many messages before the new one take part in a key: enough to tell conversations apart, few enough that a long session still hits. */
export const KEY_HISTORY_MESSAGES = 3;

/**
 * The part of a prompt a key looks at. `system` is the leading run of system messages (the system
 * prompt the loop puts first), joined by blank lines; `message` is the prompt's last message (the
 * user's message, or the tool results the model is answering); `history` holds the up to three
 * messages before it. System messages later in the prompt (reminders) count as history.
 */
export interface RequestWindow {
  system: string;
  history: LanguageModelV4Message[];
  message: LanguageModelV4Message | undefined;
}

/** O(1) in the prompt's length: a key never walks the whole history. */
export function requestWindow(prompt: LanguageModelV4Prompt, historySize = KEY_HISTORY_MESSAGES): RequestWindow {
  const system: string[] = [];
  let first = 0;
  while (first < prompt.length && prompt[first]?.role === "system") {
    system.push((prompt[first] as { content: string }).content);
    first++;
  }
  const last = prompt.length - 1;
  const message = last >= first ? prompt[last] : undefined;
  const history = prompt.slice(Math.max(first, last - historySize), Math.max(first, last));
  return { system: system.join("\n\n"), history, message };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The LLM response cache key: sha256 over the system prompt, the last three history
 * messages, the new message, the model (`provider/model`) and the temperature, as canonical JSON.
 * Two additions make a hit safe to replay: the tools offered (by name) and the tool choice, since a
 * recorded answer may call a tool, and the response format, since a JSON-mode answer is not a text
 * answer. The key does not see history older than the window: two conversations
 * that differ only before their last four messages share answers, which is the trade this cache makes
 * for constant-time keys; leave it off where that matters.
 */
export function cacheKey(options: LanguageModelV4CallOptions, model: string): string {
  const { system, history, message } = requestWindow(options.prompt);
  return sha256(
    canonicalJson({
      v: REQUEST_KEY_VERSION,
      kind: "cache",
      system,
      history,
      message: message ?? null,
      model,
      temperature: options.temperature ?? null,
      tools: (options.tools ?? []).map((t) => t.name),
      toolChoice: options.toolChoice ?? null,
      responseFormat: options.responseFormat ?? null,
    }),
  );
}

/** The tool call a tool message answers, to order results that arrived in either order. */
function toolCallIdOf(message: LanguageModelV4Message): string {
  if (message.role !== "tool") return "";
  const part = message.content[0];
  return part && "toolCallId" in part ? part.toolCallId : "";
}

/**
 * The key a cassette checks each replayed call against: the model's last message (the recording's
 * own output) and everything after it (what the run's tools answered, or the user's message), with
 * no system prompt, model or settings. The system prompt names the workspace, the date and the
 * platform, which differ on every replay; the conversation is what must not, so a replay that
 * diverges (a tool answered differently) fails at the first call after the divergence. Tool results
 * are taken in call-id order: calls of one step run concurrently and are stored as they finish, so
 * their order is not part of what a replay must reproduce. The first call of a run (no model
 * message yet) keys on the whole conversation.
 */
export function replayKey(options: LanguageModelV4CallOptions): string {
  const prompt = options.prompt;
  let first = 0;
  while (first < prompt.length && prompt[first]?.role === "system") first++;
  let last = prompt.length - 1;
  while (last >= first && prompt[last]?.role !== "assistant") last--;
  const after = prompt.slice(Math.max(first, last + 1));
  const results = after.filter((m) => m.role === "tool").sort((a, b) => (toolCallIdOf(a) < toolCallIdOf(b) ? -1 : 1));
  return sha256(
    canonicalJson({
      v: REQUEST_KEY_VERSION,
      kind: "replay",
      assistant: last >= first ? prompt[last] : null,
      after: [...after.filter((m) => m.role !== "tool"), ...results],
    }),
  );
}

/** One line saying what a request's last message is, for errors about a diverging replay. */
export function describeLastMessage(prompt: LanguageModelV4Prompt): string {
  const message = prompt[prompt.length - 1];
  if (!message) return "(an empty prompt)";
  if (typeof message.content === "string") return `${message.role}: ${oneLine(message.content, 160)}`;
  const parts = message.content.map((part) => {
    switch (part.type) {
      case "text":
      case "reasoning":
        return part.text;
      case "tool-call":
        return `call ${part.toolName}`;
      case "tool-result": {
        const output = part.output as { value?: unknown };
        return `result of ${part.toolName}: ${typeof output.value === "string" ? output.value : canonicalJson(part.output)}`;
      }
      default:
        return `[${part.type}]`;
    }
  });
  return `${message.role}: ${oneLine(parts.join(" | "), 160)}`;
}

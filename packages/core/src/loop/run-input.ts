import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { UserMessage } from "../model/message.js";
import { buildSwitchReminder, planModeReminder } from "../prompt/reminders.js";
import type { AgentDefinition, RunInput } from "./types.js";

/**
 * What a run makes of its input before it writes anything: the user's content checked, the
 * reminders that ride on it, and the trace's mission. Pure.
 */

/** Over this a prompt cannot be one session entry; far over any model's context long before. */
export const MAX_PROMPT_BYTES = 4 * 1024 * 1024;

/** A rough 4 characters a token, enough to refuse a prompt that cannot fit the model at all. */
export const CHARS_PER_TOKEN = 4;

export function userContent(prompt: RunInput["prompt"]): UserMessage["content"] {
  if (typeof prompt === "string") return [{ type: "text", text: prompt }];
  if (!Array.isArray(prompt)) throw new ArborError("invalid_input", "The prompt must be text or a list of text and file parts.");
  return prompt;
}

export function promptText(content: UserMessage["content"]): string {
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

export function checkPrompt(content: UserMessage["content"]): void {
  const text = promptText(content);
  if (text.trim() === "" && !content.some((p) => p.type === "file")) {
    throw new ArborError("invalid_input", "The prompt is empty: say what the agent should do.");
  }
  const bytes = Buffer.byteLength(JSON.stringify(content));
  if (bytes > MAX_PROMPT_BYTES) {
    throw new ArborError(
      "invalid_input",
      `The prompt is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_PROMPT_BYTES / 1024 / 1024} MB. Put large material in a file in the workspace and ask the agent to read it.`,
    );
  }
}

/** The agent that wrote the last assistant message on the path, to notice a plan → build switch. */
function lastAgent(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "message" && entry.message.role === "assistant") {
      const agent = (entry.message as { agent?: unknown }).agent;
      return typeof agent === "string" ? agent : undefined;
    }
  }
  return undefined;
}

/** Reminders that ride on the user's message, marked synthetic so they are never shown as the user's words. */
export function remindersFor(agent: AgentDefinition, path: readonly Entry[]): UserMessage["content"] {
  if (agent.name === "plan") return [{ type: "text", text: planModeReminder(), synthetic: true }];
  if (lastAgent(path) === "plan") return [{ type: "text", text: buildSwitchReminder(), synthetic: true }];
  return [];
}

/** The task of a trace: its first user message, the mission of the plan it makes. */
export function missionOf(path: readonly Entry[], fallback: string): string {
  for (const entry of path) {
    if (entry.type === "message" && entry.message.role === "user" && entry.message.synthetic !== true) {
      const text = promptText(entry.message.content).trim();
      if (text) return text;
    }
  }
  return fallback.trim();
}

import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generate, type ModelCallEnv } from "../llm/model-call.js";
import { fitText } from "../model/text.js";

/** A title longer than this is cut: lists and tabs show it on one line. */
const TITLE_CHARS = 80;

const TITLE_INSTRUCTION =
  "Write a title of at most eight words for a conversation that starts with the user's message below. " +
  "Reply with the title only: no quotes, no trailing period.";

/** The first line of the prompt, cut: the title when no title model is configured, or when it fails. */
export function titleFromPrompt(text: string): string {
  const line = text.trim().split("\n", 1)[0]?.trim() ?? "";
  if (line === "") return "Untitled";
  return fitText(line, TITLE_CHARS);
}

/** Cleans what a title model wrote: one line, no wrapping quotes, bounded length. */
export function cleanTitle(raw: string): string | undefined {
  const line = raw
    .trim()
    .split("\n", 1)[0]
    ?.trim()
    .replace(/^["'`]+|["'`.]+$/g, "")
    .trim();
  if (!line) return undefined;
  return fitText(line, TITLE_CHARS);
}

/**
 * A title from the pool's `title` model, asked once on a session's first run while the first step
 * streams. Any failure falls back to the prompt's first line: a title is never worth failing a run for.
 */
export async function generateTitle(env: ModelCallEnv, model: LanguageModelV4 | undefined, prompt: string): Promise<string> {
  if (!model) return titleFromPrompt(prompt);
  try {
    const result = await generate(env, model, {
      prompt: [
        { role: "system", content: TITLE_INSTRUCTION },
        { role: "user", content: [{ type: "text", text: prompt.slice(0, 4000) }] },
      ],
      maxOutputTokens: 40,
    });
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    return cleanTitle(text) ?? titleFromPrompt(prompt);
  } catch {
    return titleFromPrompt(prompt);
  }
}

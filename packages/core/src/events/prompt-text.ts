import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import type { LlmCallOutput } from "../llm/llm-call-log.js";

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/**
 * A model call's whole prompt as readable text for the debug panel: one `[role]` heading a message,
 * text as is, tool calls as `→ name {args}`, tool results as `← name: output`. Pure.
 */
export function promptText(prompt: LanguageModelV4Prompt): string {
  const blocks: string[] = [];
  for (const message of prompt) {
    if (typeof message.content === "string") {
      blocks.push(`[${message.role}]\n${message.content}`);
      continue;
    }
    const lines: string[] = [];
    for (const part of message.content) {
      switch (part.type) {
        case "text":
          lines.push(part.text);
          break;
        case "reasoning":
          lines.push(`(thinking) ${part.text}`);
          break;
        case "tool-call":
          lines.push(`→ ${part.toolName} ${json(part.input)}`);
          break;
        case "tool-result": {
          const output = part.output as { type?: string; value?: unknown };
          const value = typeof output.value === "string" ? output.value : json(output.value ?? output);
          lines.push(`← ${part.toolName}: ${value}`);
          break;
        }
        case "file":
          lines.push(`[file ${part.mediaType}${part.filename ? ` ${part.filename}` : ""}]`);
          break;
        default:
          lines.push(`[${part.type}]`);
      }
    }
    blocks.push(`[${message.role}]\n${lines.join("\n")}`);
  }
  return blocks.join("\n\n");
}

/** A model call's whole output as text: its reasoning, its text, then the tools it called. */
export function outputText(output: LlmCallOutput): string {
  const lines: string[] = [];
  if (output.reasoning !== "") lines.push(`(thinking) ${output.reasoning}`);
  if (output.text !== "") lines.push(output.text);
  for (const call of output.toolCalls) lines.push(`→ ${call.name} ${call.input}`);
  return lines.join("\n");
}

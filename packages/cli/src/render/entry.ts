import type { Entry, Message, ToolResultOutput } from "@arbor/core";
import { PRUNE_ENTRY_TYPE } from "@arbor/core/session";
import { firstLine, oneLine, shortId } from "./text.js";

/** How one entry reads in a one-line view: what it is, and a preview of what it says. */
export interface EntrySummary {
  /** The message role (`user`, `assistant`, …) or the entry type (`model_change`, …). */
  kind: string;
  /** One line, not cut to any width; may be empty. */
  preview: string;
}

function quote(text: string): string {
  return JSON.stringify(oneLine(text));
}

function outputPreview(output: ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return firstLine(output.value);
    case "json":
    case "error-json":
      return oneLine(JSON.stringify(output.value) ?? "");
  }
}

/** The first line of what a message says; tool calls, results and files are named when there is no text. */
export function messagePreview(message: Message): string {
  const texts: string[] = [];
  const calls: string[] = [];
  const results: string[] = [];
  const files: string[] = [];
  let reasoning = "";
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        texts.push(part.text);
        break;
      case "reasoning":
        if (reasoning === "") reasoning = firstLine(part.text);
        break;
      case "tool-call":
        calls.push(part.toolName);
        break;
      case "tool-result": {
        const out = outputPreview(part.output);
        const failed = part.output.type.startsWith("error") ? " failed" : "";
        results.push(`${part.toolName}${failed}${out ? `: ${out}` : ""}`);
        break;
      }
      case "file":
        files.push(`[file ${part.filename ?? part.mediaType}]`);
        break;
    }
  }
  const pieces: string[] = [];
  const text = firstLine(texts.join("\n"));
  if (text) pieces.push(text);
  else if (reasoning) pieces.push(`(thinking) ${reasoning}`);
  if (calls.length > 0) pieces.push(`${text ? "→ " : ""}tool call: ${calls.join(", ")}`);
  pieces.push(...results, ...files);
  if (message.error) pieces.push(`(error: ${firstLine(message.error.message)})`);
  return pieces.join(" ");
}

/** Summaries are Markdown: their first line is usually a heading such as `## Goal`; show the first line that says something. */
function withoutHeadings(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n");
}

/** A prune says how many tool results it cleared; other custom entries show their type. */
function customPreview(customType: string, data: unknown): string {
  const ids = (data as { toolCallIds?: unknown } | undefined)?.toolCallIds;
  if (customType === PRUNE_ENTRY_TYPE && Array.isArray(ids)) {
    return `${customType}: ${ids.length} old tool result${ids.length === 1 ? "" : "s"} cleared`;
  }
  return oneLine(customType);
}

export function summarizeEntry(entry: Entry): EntrySummary {
  switch (entry.type) {
    case "message":
      return { kind: entry.message.role, preview: messagePreview(entry.message) };
    case "thinking_level_change":
      return {
        kind: entry.type,
        preview: `thinking level → ${typeof entry.thinkingLevel === "number" ? `${entry.thinkingLevel} tokens` : entry.thinkingLevel}`,
      };
    case "model_change":
      return { kind: entry.type, preview: `model → ${oneLine(entry.model)}` };
    case "compaction":
      return {
        kind: entry.type,
        preview: `${firstLine(withoutHeadings(entry.summary))} (was ${entry.tokensBefore} tokens)`.trim(),
      };
    case "branch_summary":
      return { kind: entry.type, preview: `from ${shortId(entry.fromId)}: ${firstLine(entry.summary)}` };
    case "custom":
      return { kind: entry.type, preview: customPreview(entry.customType, entry.data) };
    case "custom_message": {
      const content =
        typeof entry.content === "string"
          ? entry.content
          : entry.content.map((p) => (p.type === "text" ? p.text : `[file ${p.filename ?? p.mediaType}]`)).join("\n");
      return { kind: entry.type, preview: `${oneLine(entry.customType)}: ${firstLine(content)}` };
    }
    case "label":
      return {
        kind: entry.type,
        preview:
          entry.label === undefined
            ? `clear label on ${shortId(entry.targetId)}`
            : `${shortId(entry.targetId)} = ${quote(entry.label)}`,
      };
    case "session_info":
      return { kind: entry.type, preview: entry.title !== undefined ? `title ${quote(entry.title)}` : "" };
    case "subagent_batch":
      return {
        kind: entry.type,
        preview: `${entry.mode}, ${entry.tasks.length} task${entry.tasks.length === 1 ? "" : "s"}: ${entry.tasks.map((t) => firstLine(t.task)).join("; ")}`,
      };
    case "subagent_result":
      return { kind: entry.type, preview: `${entry.status} ${entry.subSessionId}: ${firstLine(entry.summary)}` };
  }
}

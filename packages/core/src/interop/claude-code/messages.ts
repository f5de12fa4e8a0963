import type { Message, TokenUsage } from "../../model/message.js";
import type { FilePart, Part, TextPart, ToolResultOutput } from "../../model/parts.js";
import type { EntryBody } from "../build.js";
import { addSkip, type SkipCounts } from "../types.js";
import type { ClaudeAssistantLine, ClaudeBlock, ClaudeUserLine } from "./schema.js";

/** What converting one file needs to remember across its lines. */
export interface ClaudeContext {
  /** tool_use id → tool name, so a tool_result (which names only the id) gets its tool. */
  toolNames: Map<string, string>;
  /** API message ids whose usage was already counted: one response is split over several lines. */
  usageSeen: Set<string>;
  skipped: SkipCounts;
}

type Block = ClaudeBlock & Record<string, unknown>;

function filePart(b: Block): FilePart | undefined {
  const src = b.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (!src) return undefined;
  if (src.type === "base64" && src.data)
    return { type: "file", mediaType: src.media_type ?? "application/octet-stream", data: src.data };
  if (src.url) return { type: "file", mediaType: src.media_type ?? "image/*", url: src.url };
  return undefined;
}

function resultOutput(b: Block): ToolResultOutput {
  const c = b.content as unknown;
  const isError = b.is_error === true;
  if (c === undefined || typeof c === "string")
    return { type: isError ? "error-text" : "text", value: (c as string | undefined) ?? "" };
  const blocks = c as Block[];
  if (blocks.every((x) => x.type === "text")) {
    return { type: isError ? "error-text" : "text", value: blocks.map((x) => String(x.text ?? "")).join("\n") };
  }
  return { type: isError ? "error-json" : "json", value: blocks };
}

/**
 * A user line as Arbor entries: tool results become a tool message, the rest a user message; a
 * line holding both gives both, the tool message first (it answers the turn before).
 */
export function userBodies(line: ClaudeUserLine, ctx: ClaudeContext): EntryBody[] {
  const content = line.message.content;
  if (typeof content === "string") return [{ type: "message", message: userMessage([{ type: "text", text: content }], line) }];
  const results: Part[] = [];
  const parts: Array<TextPart | FilePart> = [];
  for (const raw of content) {
    const b = raw as Block;
    if (b.type === "tool_result") {
      const id = String(b.tool_use_id);
      results.push({
        type: "tool-result",
        toolCallId: id,
        toolName: ctx.toolNames.get(id) ?? "unknown",
        output: resultOutput(b),
      });
    } else if (b.type === "text") parts.push({ type: "text", text: String(b.text) });
    else if (b.type === "image") {
      const f = filePart(b);
      if (f) parts.push(f);
      else addSkip(ctx.skipped, "image block without data or url");
    } else addSkip(ctx.skipped, `user content block "${b.type}"`);
  }
  const out: EntryBody[] = [];
  if (results.length) out.push({ type: "message", message: { role: "tool", content: results } as Message });
  if (parts.length || !results.length) out.push({ type: "message", message: userMessage(parts, line) });
  return out;
}

function userMessage(content: Array<TextPart | FilePart>, line: ClaudeUserLine): Message {
  return { role: "user", content, ...(line.isMeta ? { synthetic: true } : {}) };
}

export function assistantBody(line: ClaudeAssistantLine, ctx: ClaudeContext): EntryBody {
  const m = line.message;
  const content: Part[] = [];
  for (const raw of m.content) {
    const b = raw as Block;
    switch (b.type) {
      case "text":
        content.push({ type: "text", text: String(b.text) });
        break;
      case "thinking":
        content.push({
          type: "reasoning",
          text: String(b.thinking),
          ...(b.signature ? { providerMetadata: { anthropic: { signature: b.signature } } } : {}),
        });
        break;
      case "redacted_thinking":
        content.push({ type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: b.data } } });
        break;
      case "tool_use":
        ctx.toolNames.set(String(b.id), String(b.name));
        content.push({ type: "tool-call", toolCallId: String(b.id), toolName: String(b.name), input: b.input ?? {} });
        break;
      case "image": {
        const f = filePart(b);
        if (f) content.push(f);
        break;
      }
      default:
        addSkip(ctx.skipped, `assistant content block "${b.type}"`);
    }
  }
  const first = m.id === undefined || !ctx.usageSeen.has(m.id);
  if (m.id !== undefined) ctx.usageSeen.add(m.id);
  const message: Record<string, unknown> = { role: "assistant", content };
  if (m.model && m.model !== "<synthetic>") message.model = `anthropic/${m.model}`;
  if (m.stop_reason) message.finishReason = m.stop_reason;
  if (line.isApiErrorMessage)
    message.error = { message: content.map((p) => (p.type === "text" ? p.text : "")).join("") || "API error" };
  if (first && m.usage) message.tokens = tokens(m.usage);
  return { type: "message", message: message as Message };
}

function tokens(u: NonNullable<ClaudeAssistantLine["message"]["usage"]>): TokenUsage {
  const n = (v: number | undefined) => (v !== undefined && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
  return {
    input: n(u.input_tokens),
    output: n(u.output_tokens),
    reasoning: 0,
    cacheRead: n(u.cache_read_input_tokens),
    cacheWrite: n(u.cache_creation_input_tokens),
  };
}

/** The first text of a user line: how a sub-agent's task and a session's title are recognised. */
export function userText(line: ClaudeUserLine): string {
  const c = line.message.content;
  if (typeof c === "string") return c;
  for (const b of c) if (b.type === "text") return String((b as Block).text);
  return "";
}

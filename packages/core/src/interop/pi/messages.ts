import type { z } from "zod";
import type { Message } from "../../model/message.js";
import type { FilePart, Part, TextPart, ToolResultOutput } from "../../model/parts.js";
import type { PiAssistantBlock, PiAssistantMessageSchema, PiToolResultMessageSchema, PiUserBlock } from "./schema.js";

type UserContent = Array<TextPart | FilePart>;

/** pi's user blocks as Arbor parts: text stays text, images become file parts with inline data. */
export function userParts(content: string | PiUserBlock[]): UserContent {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((b) =>
    b.type === "text" ? { type: "text", text: b.text } : { type: "file", mediaType: b.mimeType, data: b.data },
  );
}

export function piUserBlocks(parts: ReadonlyArray<Part>): PiUserBlock[] {
  const out: PiUserBlock[] = [];
  for (const p of parts) {
    if (p.type === "text") out.push({ type: "text", text: p.text });
    else if (p.type === "file" && p.data !== undefined) out.push({ type: "image", data: p.data, mimeType: p.mediaType });
  }
  return out;
}

function assistantPart(b: PiAssistantBlock): Part {
  switch (b.type) {
    case "text":
      return {
        type: "text",
        text: b.text,
        ...(b.textSignature ? { providerMetadata: { pi: { textSignature: b.textSignature } } } : {}),
      };
    case "thinking": {
      const meta = {
        ...(b.thinkingSignature ? { thinkingSignature: b.thinkingSignature } : {}),
        ...(b.redacted ? { redacted: true } : {}),
      };
      return { type: "reasoning", text: b.thinking, ...(Object.keys(meta).length ? { providerMetadata: { pi: meta } } : {}) };
    }
    case "toolCall":
      return { type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.arguments ?? {} };
    case "image":
      return { type: "file", mediaType: b.mimeType, data: b.data };
  }
}

export function piAssistantBlock(p: Part): PiAssistantBlock | undefined {
  const pi = (p as { providerMetadata?: { pi?: Record<string, unknown> } }).providerMetadata?.pi ?? {};
  switch (p.type) {
    case "text":
      return { type: "text", text: p.text, ...(typeof pi.textSignature === "string" ? { textSignature: pi.textSignature } : {}) };
    case "reasoning":
      return {
        type: "thinking",
        thinking: p.text,
        ...(typeof pi.thinkingSignature === "string" ? { thinkingSignature: pi.thinkingSignature } : {}),
        ...(pi.redacted === true ? { redacted: true } : {}),
      };
    case "tool-call":
      return { type: "toolCall", id: p.toolCallId, name: p.toolName, arguments: p.input ?? {} };
    case "file":
      return p.data !== undefined ? { type: "image", data: p.data, mimeType: p.mediaType } : undefined;
    case "tool-result":
      return undefined;
  }
}

/**
 * The fields of a pi message other than `omit`: what Arbor's message has no field for, kept
 * verbatim under `pi` so an export writes the message back as pi wrote it.
 */
export function piExtras(m: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (!omit.includes(k)) out[k] = v;
  return out;
}

export function assistantMessage(m: z.infer<typeof PiAssistantMessageSchema>): Message {
  const u = m.usage;
  const pi = piExtras(m, ["role", "content"]);
  return {
    role: "assistant",
    content: m.content.map(assistantPart) as Extract<Message, { role: "assistant" }>["content"],
    ...(m.provider && m.model ? { model: `${m.provider}/${m.model}` } : m.model ? { model: m.model } : {}),
    ...(u
      ? {
          tokens: {
            input: whole(u.input),
            output: whole(u.output),
            reasoning: 0,
            cacheRead: whole(u.cacheRead),
            cacheWrite: whole(u.cacheWrite),
          },
        }
      : {}),
    // pi records 0 for a model it has no price for: only a positive cost is a known price.
    ...(u?.cost?.total !== undefined && u.cost.total > 0 ? { cost: u.cost.total } : {}),
    ...(m.stopReason ? { finishReason: m.stopReason } : {}),
    ...(m.errorMessage ? { error: { message: m.errorMessage } } : {}),
    pi,
  };
}

export function toolMessage(m: z.infer<typeof PiToolResultMessageSchema>): Message {
  const textOnly = m.content.every((b) => b.type === "text");
  const text = m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  const output: ToolResultOutput = textOnly
    ? { type: m.isError ? "error-text" : "text", value: text }
    : { type: m.isError ? "error-json" : "json", value: m.content };
  return {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: m.toolCallId, toolName: m.toolName || "unknown", output }],
    // toolName stays here too: pi may write an empty one, which Arbor's part cannot hold.
    pi: piExtras(m, ["role", "content", "toolCallId", "isError"]),
  };
}

function whole(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}

import type { Entry, Snapshot, ToolResultOutput } from "@arbor/core";
import { steeringText } from "../../lib/steering.js";

/**
 * The active path as the chat shows it: each entry once, an assistant message's tool calls paired
 * with their results from the tool messages after it (by call id), and entries the user never sees
 * (custom, label, session_info) left out.
 */
export interface ToolCallView {
  callId: string;
  tool: string;
  /** The input as JSON text. */
  input: string;
  status: "running" | "done" | "error";
  output?: string;
  durationMs?: number;
  /** What the tool reported of the call and kept in its result (bash's exit code and line count, say). */
  metadata?: Record<string, unknown>;
}

/** An image a message carries, as a URL the page can show (a data: URL for inline bytes). */
export interface ImageView {
  src: string;
  alt: string;
}

/** One changed file of a step's `arbor.patch` record. */
export interface FileChangeView {
  path: string;
  status: string;
  diff: string;
}

export type HistoryBlock =
  | {
      kind: "user";
      entry: Entry;
      text: string;
      images: ImageView[];
      /** Sent while a run worked and read by it at a step (shown unwrapped, marked as steering). */
      steering?: true;
    }
  | {
      kind: "assistant";
      entry: Entry;
      reasoning: string;
      text: string;
      tools: ToolCallView[];
      images: ImageView[];
      error?: string;
    }
  | { kind: "patch"; entry: Entry; files: FileChangeView[] }
  | { kind: "subagent_result"; entry: Entry; subSessionId: string; status: string; summary: string; metadata: unknown }
  | { kind: "tool"; entry: Entry; tools: ToolCallView[] }
  | { kind: "compaction"; entry: Entry; summary: string; tokensBefore: number }
  | { kind: "branch_summary"; entry: Entry; summary: string }
  | { kind: "note"; entry: Entry; text: string };

export function outputText(output: ToolResultOutput): string {
  return typeof output.value === "string" ? output.value : JSON.stringify(output.value, null, 2);
}

export function isErrorOutput(output: ToolResultOutput): boolean {
  return output.type === "error-text" || output.type === "error-json";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: "text"; text: string } => (p as { type?: string }).type === "text")
    .map((p) => p.text)
    .join("");
}

const PATCH_ENTRY_TYPE = "arbor.patch";

function imagesOf(content: unknown): ImageView[] {
  if (!Array.isArray(content)) return [];
  const out: ImageView[] = [];
  for (const p of content as Array<{ type?: string; mediaType?: string; data?: string; url?: string; filename?: string }>) {
    if (p.type !== "file" || !p.mediaType?.startsWith("image/")) continue;
    const alt = p.filename ?? "image";
    // Only inline bytes and web URLs: a blob reference or a local path cannot be shown from here.
    if (p.data) out.push({ src: p.data.startsWith("data:") ? p.data : `data:${p.mediaType};base64,${p.data}`, alt });
    else if (p.url && /^(https?:|data:image\/)/.test(p.url)) out.push({ src: p.url, alt });
  }
  return out;
}

function fileChanges(data: unknown): FileChangeView[] | undefined {
  const files = (data as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) return undefined;
  return files
    .filter((f): f is FileChangeView => typeof f?.path === "string" && typeof f?.diff === "string")
    .map((f) => ({ path: f.path, status: String(f.status ?? "modified"), diff: f.diff }));
}

export function buildHistory(snapshot: Snapshot): HistoryBlock[] {
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]));
  const path = snapshot.activePath.map((id) => byId.get(id)).filter((e): e is Entry => e !== undefined);
  const blocks: HistoryBlock[] = [];
  const pending = new Map<string, ToolCallView>();
  for (const entry of path) {
    switch (entry.type) {
      case "message": {
        const m = entry.message;
        if (m.role === "user") {
          if (!m.synthetic) {
            const text = textOf(m.content);
            const steered = steeringText(text);
            blocks.push({
              kind: "user",
              entry,
              text: steered ?? text,
              images: imagesOf(m.content),
              ...(steered !== undefined ? { steering: true as const } : {}),
            });
          }
        } else if (m.role === "assistant") {
          const tools: ToolCallView[] = [];
          let reasoning = "";
          let text = "";
          for (const part of m.content) {
            if (part.type === "reasoning") reasoning += part.text;
            else if (part.type === "text") text += part.text;
            else if (part.type === "tool-call") {
              const view: ToolCallView = {
                callId: part.toolCallId,
                tool: part.toolName,
                input: JSON.stringify(part.input ?? {}),
                status: "running",
              };
              pending.set(part.toolCallId, view);
              tools.push(view);
            }
          }
          const block: HistoryBlock = { kind: "assistant", entry, reasoning, text, tools, images: imagesOf(m.content) };
          if (m.error) block.error = m.error.message;
          blocks.push(block);
        } else if (m.role === "tool") {
          const orphans: ToolCallView[] = [];
          for (const part of m.content) {
            const call = pending.get(part.toolCallId);
            const target: ToolCallView = call ?? { callId: part.toolCallId, tool: part.toolName, input: "", status: "running" };
            target.status = isErrorOutput(part.output) ? "error" : "done";
            target.output = outputText(part.output);
            // Loose fields of the stored part: only an object is metadata.
            const metadata = (part as { metadata?: unknown }).metadata;
            if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
              target.metadata = metadata as Record<string, unknown>;
            }
            if (m.durationMs !== undefined) target.durationMs = m.durationMs;
            if (!call) orphans.push(target);
          }
          if (orphans.length > 0) blocks.push({ kind: "tool", entry, tools: orphans });
        }
        break;
      }
      case "compaction":
        blocks.push({ kind: "compaction", entry, summary: entry.summary, tokensBefore: entry.tokensBefore });
        break;
      case "branch_summary":
        blocks.push({ kind: "branch_summary", entry, summary: entry.summary });
        break;
      case "custom_message":
        if (entry.display !== false) blocks.push({ kind: "note", entry, text: textOf(entry.content) });
        break;
      case "model_change":
        blocks.push({ kind: "note", entry, text: `Model changed to ${entry.model}` });
        break;
      case "thinking_level_change":
        blocks.push({ kind: "note", entry, text: `Thinking level: ${entry.thinkingLevel}` });
        break;
      case "subagent_batch":
        blocks.push({ kind: "note", entry, text: `Sub-agents (${entry.mode}): ${entry.tasks.map((t) => t.task).join("; ")}` });
        break;
      case "subagent_result":
        blocks.push({
          kind: "subagent_result",
          entry,
          subSessionId: entry.subSessionId,
          status: entry.status,
          summary: entry.summary,
          metadata: entry.metadata,
        });
        break;
      case "custom": {
        const files = entry.customType === PATCH_ENTRY_TYPE ? fileChanges(entry.data) : undefined;
        if (files && files.length > 0) blocks.push({ kind: "patch", entry, files });
        break;
      }
      default:
        break;
    }
  }
  return blocks;
}

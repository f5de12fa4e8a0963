import type { Entry } from "../../model/entry.js";
import type { Message } from "../../model/message.js";
import type { SessionExport } from "../../store/export-format.js";
import { entriesToExport } from "../path.js";
import { piAssistantBlock, piUserBlocks } from "./messages.js";

type Line = Record<string, unknown>;

/**
 * A session as a pi v3 session file: the header, then one line per entry with its id and parent,
 * so pi opens it with its tree. What pi has no entry for (sub-agent batches and results, system
 * messages) becomes a `custom` entry carrying the Arbor entry. Pure.
 */
export function toPiSession(data: SessionExport, opts: { leaf?: string } = {}): string {
  const s = data.session;
  const origin = (s as { importedFrom?: { agent?: string; sourceId?: string } }).importedFrom;
  const header: Line = {
    type: "session",
    version: 3,
    id: origin?.agent === "pi" && origin.sourceId ? origin.sourceId : s.id,
    timestamp: s.createdAt,
    cwd: s.cwd ?? "",
  };
  const forkedFrom = (s as { forkedFrom?: unknown }).forkedFrom;
  if (typeof forkedFrom === "string") header.parentSession = forkedFrom;
  const lines: Line[] = [header];
  // An Arbor entry that becomes several pi lines is continued from its last one.
  const lastLineOf = new Map<string, string>();
  for (const e of entriesToExport(data.entries, opts.leaf, s.id)) {
    const parentId = e.parentId === null ? null : (lastLineOf.get(e.parentId) ?? e.parentId);
    const out = piLines(e);
    let parent = parentId;
    for (const [i, body] of out.entries()) {
      const id = i === 0 ? e.id : `${e.id}-${i + 1}`;
      lines.push({ ...body, id, parentId: parent, timestamp: e.timestamp });
      parent = id;
    }
    lastLineOf.set(e.id, parent ?? e.id);
  }
  return `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
}

function piLines(e: Entry): Line[] {
  const extra = (e as { pi?: Record<string, unknown> }).pi ?? {};
  switch (e.type) {
    case "message":
      return messageLines(e.message);
    case "model_change": {
      const slash = e.model.indexOf("/");
      return [{ type: "model_change", provider: e.model.slice(0, slash), modelId: e.model.slice(slash + 1) }];
    }
    case "thinking_level_change":
      return [{ type: "thinking_level_change", thinkingLevel: e.thinkingLevel }];
    case "compaction":
      return [
        {
          type: "compaction",
          summary: e.summary,
          firstKeptEntryId: e.firstKeptEntryId,
          tokensBefore: e.tokensBefore,
          ...(e.details !== undefined ? { details: e.details } : {}),
          ...(extra.fromHook !== undefined ? { fromHook: extra.fromHook } : {}),
        },
      ];
    case "branch_summary":
      return [
        {
          type: "branch_summary",
          fromId: e.fromId,
          summary: e.summary,
          ...(e.details !== undefined ? { details: e.details } : {}),
        },
      ];
    case "label":
      return [{ type: "label", targetId: e.targetId, ...(e.label !== undefined ? { label: e.label } : {}) }];
    case "session_info":
      return [{ type: "session_info", ...(e.title !== undefined ? { name: e.title } : {}) }];
    case "custom":
      return [{ type: "custom", customType: e.customType, ...(e.data !== undefined ? { data: e.data } : {}) }];
    case "custom_message":
      return [customMessageLine(e, extra)];
    case "subagent_batch":
    case "subagent_result":
      return [{ type: "custom", customType: `arbor.${e.type}`, data: e }];
  }
}

function customMessageLine(e: Extract<Entry, { type: "custom_message" }>, extra: Record<string, unknown>): Line {
  const content = typeof e.content === "string" ? e.content : piUserBlocks(e.content);
  if (e.customType === "pi.bashExecution" && isRecord(e.details)) {
    return { type: "message", message: { ...e.details, role: "bashExecution" } };
  }
  if (e.customType.startsWith("pi.message.") && isRecord(e.details) && isRecord(e.details.message)) {
    return { type: "message", message: e.details.message };
  }
  const fields = {
    customType: e.customType,
    content,
    display: e.display,
    ...(e.details !== undefined ? { details: e.details } : {}),
  };
  if (extra.entry === "custom_message") return { type: "custom_message", ...fields };
  return {
    type: "message",
    message: { role: "custom", ...fields, ...(extra.timestamp !== undefined ? { timestamp: extra.timestamp } : {}) },
  };
}

function messageLines(m: Message): Line[] {
  const extra = (m as { pi?: Record<string, unknown> }).pi ?? {};
  const stamp = typeof extra.timestamp === "number" ? { timestamp: extra.timestamp } : {};
  switch (m.role) {
    case "user":
      return [
        {
          type: "message",
          message: {
            role: "user",
            content:
              extra.plain === true && m.content.length === 1 && m.content[0]?.type === "text"
                ? m.content[0].text
                : piUserBlocks(m.content),
            ...stamp,
          },
        },
      ];
    case "assistant": {
      const [provider, ...rest] = (m.model ?? "").split("/");
      const t = m.tokens;
      const message: Line = {
        role: "assistant",
        content: m.content.map(piAssistantBlock).filter((b) => b !== undefined),
        ...(m.model ? { provider, model: rest.join("/") } : {}),
        ...(t
          ? {
              usage: {
                input: t.input,
                output: t.output,
                cacheRead: t.cacheRead,
                cacheWrite: t.cacheWrite,
                totalTokens: t.input + t.output + t.cacheRead + t.cacheWrite,
                cost: { total: m.cost ?? 0 },
              },
            }
          : {}),
        ...(m.finishReason ? { stopReason: m.finishReason } : {}),
        ...(m.error ? { errorMessage: m.error.message } : {}),
        ...extra,
      };
      return [{ type: "message", message }];
    }
    case "tool":
      return m.content.map((r) => {
        const isError = r.output.type === "error-text" || r.output.type === "error-json";
        const content =
          r.output.type === "text" || r.output.type === "error-text"
            ? [{ type: "text", text: r.output.value }]
            : Array.isArray(r.output.value)
              ? r.output.value
              : [{ type: "text", text: JSON.stringify(r.output.value) }];
        return {
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: r.toolCallId,
            toolName: r.toolName,
            content,
            isError,
            ...extra,
          },
        };
      });
    case "system":
      return [{ type: "custom_message", customType: "arbor.system", content: piUserBlocks(m.content), display: false }];
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

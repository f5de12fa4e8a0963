import { ArborError } from "../../errors.js";
import { ModelRefSchema, ThinkingLevelSchema } from "../../model/entry.js";
import { type EntryBody, SessionBuilder } from "../build.js";
import { importedEntryId, importedSessionId } from "../ids.js";
import { parseJsonLines } from "../jsonl.js";
import { isoTime } from "../time.js";
import { addSkip, type Conversion, type SkipCounts } from "../types.js";
import { assistantMessage, piExtras, toolMessage, userParts } from "./messages.js";
import {
  PiAssistantMessageSchema,
  PiBashExecutionSchema,
  PiCustomMessageSchema,
  type PiEntry,
  PiEntrySchema,
  PiHeaderSchema,
  PiToolResultMessageSchema,
  PiUserMessageSchema,
} from "./schema.js";

/**
 * A pi session file (v1 linear, v2/v3 tree) as an Arbor session. v1 lines have no ids: they get
 * `v1-<line>` and each hangs on the one before, which is what pi's own migration does. Pure.
 */
export function convertPiSession(text: string, source = "the file"): Conversion {
  const skipped: SkipCounts = {};
  const { lines, bad } = parseJsonLines(text);
  if (bad.length) addSkip(skipped, "line is not JSON", bad.length);
  const head = PiHeaderSchema.safeParse(lines[0]?.value);
  if (!head.success) {
    throw new ArborError(
      "invalid_input",
      `${source} is not a pi session: its first line must be the header {"type":"session","id":…}. Give a file from ~/.pi/agent/sessions.`,
    );
  }
  const h = head.data;
  const linear = h.version === undefined || h.version < 2;
  const b = new SessionBuilder(
    {
      id: importedSessionId("pi", h.id),
      origin: { agent: "pi", sourceId: h.id, version: String(h.version ?? 1) },
      ...(h.cwd ? { cwd: h.cwd } : {}),
    },
    skipped,
    isoTime(h.timestamp) ?? new Date(0).toISOString(),
  );
  // v1 compactions name the first kept entry by its index among the file's lines (header = 0).
  const v1Ids: Array<string | undefined> = [undefined];
  let title: string | undefined;
  for (const { line, value } of lines.slice(1)) {
    const parsed = PiEntrySchema.safeParse(value);
    if (!parsed.success) {
      const type = (value as { type?: unknown })?.type;
      addSkip(skipped, typeof type === "string" ? `unknown line type "${type}"` : "line without a type");
      // Its children hang on what it hung on.
      const { id, parentId } = (value ?? {}) as { id?: unknown; parentId?: unknown };
      if (!linear && typeof id === "string")
        b.bridge(importedEntryId(id), typeof parentId === "string" ? importedEntryId(parentId) : null);
      v1Ids.push(undefined);
      continue;
    }
    const e = parsed.data;
    const id = linear || !e.id ? b.uniqueId(`v1-${line}`) : importedEntryId(e.id);
    const parentId = linear ? (b.last?.id ?? null) : e.parentId ? importedEntryId(e.parentId) : null;
    const body = entryBody(e, v1Ids, b, skipped);
    v1Ids.push(id);
    if (body === undefined) {
      b.bridge(id, parentId);
      continue;
    }
    if (e.type === "session_info" && e.name) title = e.name;
    b.add(id, parentId, isoTime(e.timestamp), body);
  }
  const out = b.finish();
  if (title !== undefined) out.session.title = title.slice(0, 500);
  if (h.parentSession) (out.session as Record<string, unknown>).forkedFrom = h.parentSession;
  return { sessions: [out], skipped };
}

function entryBody(
  e: PiEntry,
  v1Ids: ReadonlyArray<string | undefined>,
  b: SessionBuilder,
  skipped: SkipCounts,
): EntryBody | undefined {
  switch (e.type) {
    case "message":
      return messageBody(e.message, skipped);
    case "model_change": {
      const model = ModelRefSchema.safeParse(`${e.provider.toLowerCase()}/${e.modelId}`);
      if (!model.success) return skip(skipped, "model_change with a model Arbor cannot name");
      return { type: "model_change", model: model.data };
    }
    case "thinking_level_change": {
      const level = ThinkingLevelSchema.safeParse(e.thinkingLevel);
      if (!level.success) return skip(skipped, `thinking level "${e.thinkingLevel}" Arbor does not have`);
      return { type: "thinking_level_change", thinkingLevel: level.data };
    }
    case "compaction": {
      const kept =
        e.firstKeptEntryId != null
          ? b.resolve(importedEntryId(e.firstKeptEntryId))
          : e.firstKeptEntryIndex !== undefined
            ? b.resolve(v1Ids[e.firstKeptEntryIndex])
            : null;
      const { fromHook } = e as { fromHook?: unknown };
      return {
        type: "compaction",
        summary: e.summary,
        firstKeptEntryId: kept ?? null,
        tokensBefore: Math.max(0, Math.round(e.tokensBefore ?? 0)),
        ...(e.details !== undefined ? { details: e.details } : {}),
        ...(fromHook !== undefined ? { pi: { fromHook } } : {}),
      };
    }
    case "branch_summary": {
      const from = b.resolve(importedEntryId(e.fromId));
      if (!from) return skip(skipped, "branch_summary naming an entry that is not in the file");
      return {
        type: "branch_summary",
        fromId: from,
        summary: e.summary,
        ...(e.details !== undefined ? { details: e.details } : {}),
      };
    }
    case "label": {
      const target = b.resolve(importedEntryId(e.targetId));
      if (!target) return skip(skipped, "label on an entry that is not in the file");
      return { type: "label", targetId: target, ...(e.label ? { label: e.label.slice(0, 200) } : {}) };
    }
    case "session_info":
      return { type: "session_info", ...(e.name !== undefined ? { title: e.name.slice(0, 500) } : {}) };
    case "custom":
      return { type: "custom", customType: e.customType, ...(e.data !== undefined ? { data: e.data } : {}) };
    case "custom_message":
      return {
        type: "custom_message",
        customType: e.customType,
        content: userParts(e.content),
        display: e.display ?? true,
        includeInContext: true,
        ...(e.details !== undefined ? { details: e.details } : {}),
        pi: { entry: "custom_message" },
      };
  }
}

function messageBody(message: { role: string }, skipped: SkipCounts): EntryBody | undefined {
  switch (message.role) {
    case "user": {
      const m = PiUserMessageSchema.safeParse(message);
      if (!m.success) return skip(skipped, "user message Arbor cannot read");
      return {
        type: "message",
        message: {
          role: "user",
          content: userParts(m.data.content),
          pi: {
            ...(typeof m.data.content === "string" ? { plain: true } : {}),
            ...(m.data.timestamp !== undefined ? { timestamp: m.data.timestamp } : {}),
          },
        },
      };
    }
    case "assistant": {
      const m = PiAssistantMessageSchema.safeParse(message);
      if (!m.success) return skip(skipped, "assistant message Arbor cannot read");
      return { type: "message", message: assistantMessage(m.data) };
    }
    case "toolResult": {
      const m = PiToolResultMessageSchema.safeParse(message);
      if (!m.success) return skip(skipped, "tool result Arbor cannot read");
      return { type: "message", message: toolMessage(m.data) };
    }
    case "bashExecution": {
      const m = PiBashExecutionSchema.safeParse(message);
      if (!m.success) return skip(skipped, "bash execution Arbor cannot read");
      const d = m.data;
      const text = `$ ${d.command}\n${d.output ?? ""}${d.exitCode != null && d.exitCode !== 0 ? `\n(exit code ${d.exitCode})` : ""}`;
      return {
        type: "custom_message",
        customType: "pi.bashExecution",
        content: [{ type: "text", text }],
        display: true,
        includeInContext: d.excludeFromContext !== true,
        details: d,
      };
    }
    case "custom":
    case "hookMessage": {
      const m = PiCustomMessageSchema.safeParse(message);
      if (!m.success) return skip(skipped, "custom message Arbor cannot read");
      return {
        type: "custom_message",
        customType: m.data.customType,
        content: userParts(m.data.content),
        display: m.data.display ?? true,
        includeInContext: true,
        ...(m.data.details !== undefined ? { details: m.data.details } : {}),
        pi: { role: m.data.role, ...piExtras(m.data, ["role", "customType", "content", "display", "details"]) },
      };
    }
    default:
      // Roles pi adds later are kept whole so an export writes them back unchanged.
      return {
        type: "custom_message",
        customType: `pi.message.${message.role}`,
        content: [{ type: "text", text: "" }],
        display: false,
        includeInContext: false,
        details: { message },
      };
  }
}

function skip(skipped: SkipCounts, reason: string): undefined {
  addSkip(skipped, reason);
  return undefined;
}

import { ArborError } from "../../errors.js";
import { ModelRefSchema } from "../../model/entry.js";
import type { Message } from "../../model/message.js";
import type { FilePart, Part, TextPart, ToolResultOutput } from "../../model/parts.js";
import type { SessionExport } from "../../store/export-format.js";
import { SessionBuilder } from "../build.js";
import { importedEntryId, importedSessionId, importedSubTraceId } from "../ids.js";
import { isoTime } from "../time.js";
import { addSkip, type Conversion, type SkipCounts } from "../types.js";
import {
  OpenCodeAssistantSchema,
  type OpenCodeMessageRow,
  OpenCodeMessageRowSchema,
  OpenCodePartSchema,
  type OpenCodeSessionRow,
  OpenCodeSessionRowSchema,
  OpenCodeUserSchema,
} from "./schema.js";

/** The rows of an OpenCode 2.x database (or a dump of it), by table. */
export interface OpenCodeRows {
  sessions: unknown[];
  messages: unknown[];
}

/**
 * OpenCode sessions as Arbor sessions: one conversion per top-level session, its sub-agent
 * sessions (`parent_id`) as its sub-traces. An assistant record holds both its tool calls and
 * their results; Arbor keeps the calls on the assistant message and the results in a tool
 * message after it. Pure.
 */
export function convertOpenCodeRows(rows: OpenCodeRows, source = "the database"): Conversion[] {
  const skipped: SkipCounts = {};
  const sessions: OpenCodeSessionRow[] = [];
  for (const r of rows.sessions) {
    const s = OpenCodeSessionRowSchema.safeParse(r);
    if (s.success) sessions.push(s.data);
    else addSkip(skipped, "session row Arbor cannot read");
  }
  if (sessions.length === 0) {
    throw new ArborError(
      "invalid_input",
      `${source} holds no OpenCode session (no readable session_v2 row). Give OpenCode's opencode.db.`,
    );
  }
  const bySession = new Map<string, OpenCodeMessageRow[]>();
  for (const r of rows.messages) {
    const m = OpenCodeMessageRowSchema.safeParse(r);
    if (!m.success) {
      addSkip(skipped, "message row Arbor cannot read");
      continue;
    }
    const list = bySession.get(m.data.session_id);
    if (list) list.push(m.data);
    else bySession.set(m.data.session_id, [m.data]);
  }
  const children = new Map<string, OpenCodeSessionRow[]>();
  for (const s of sessions) {
    if (!s.parent_id) continue;
    const list = children.get(s.parent_id);
    if (list) list.push(s);
    else children.set(s.parent_id, [s]);
  }
  const ids = new Set(sessions.map((s) => s.id));
  const out: Conversion[] = [];
  for (const top of sessions.filter((s) => !s.parent_id || !ids.has(s.parent_id))) {
    const own: SkipCounts = { ...(out.length === 0 ? skipped : {}) };
    const converted: SessionExport[] = [];
    const walk = (s: OpenCodeSessionRow, arborId: string, parentId: string | undefined) => {
      converted.push(convertOne(s, arborId, parentId, bySession.get(s.id) ?? [], own));
      const kids = [...(children.get(s.id) ?? [])].sort((a, b) => a.time_created - b.time_created);
      for (const [i, kid] of kids.entries()) {
        walk(kid, importedSubTraceId(arborId, new Date(kid.time_created).toISOString(), i + 1), arborId);
      }
    };
    walk(top, importedSessionId("opencode", top.id), undefined);
    out.push({ sessions: converted, skipped: own });
  }
  return out;
}

function convertOne(
  s: OpenCodeSessionRow,
  id: string,
  parentId: string | undefined,
  rows: OpenCodeMessageRow[],
  skipped: SkipCounts,
): SessionExport {
  const b = new SessionBuilder(
    {
      id,
      origin: { agent: "opencode", sourceId: s.id, ...(s.version ? { version: s.version } : {}) },
      ...(s.title ? { title: s.title } : {}),
      ...(s.directory ? { cwd: s.directory } : {}),
      ...(parentId ? { parentSessionId: parentId, agentType: "sub-agent", task: s.title ?? "" } : {}),
    },
    skipped,
    new Date(s.time_created).toISOString(),
  );
  let model: string | undefined;
  const append = (entryId: string, at: string | undefined, message: Message) =>
    b.add(b.uniqueId(entryId), b.last?.id ?? null, at, { type: "message", message });
  for (const row of [...rows].sort((x, y) => x.seq - y.seq)) {
    const at = isoTime(row.time_created);
    const eid = importedEntryId(row.id);
    const data = (row.data ?? {}) as Record<string, unknown>;
    switch (row.type) {
      case "user":
      case "synthetic": {
        const u = OpenCodeUserSchema.safeParse(data);
        if (!u.success) {
          addSkip(skipped, `${row.type} record Arbor cannot read`);
          break;
        }
        const content: Array<TextPart | FilePart> = [];
        if (u.data.text) content.push({ type: "text", text: u.data.text });
        for (const f of u.data.files ?? []) {
          if (f.url)
            content.push({
              type: "file",
              mediaType: f.mime ?? "application/octet-stream",
              url: f.url,
              ...(f.filename ? { filename: f.filename } : {}),
            });
        }
        append(eid, at, { role: "user", content, ...(row.type === "synthetic" ? { synthetic: true } : {}) });
        break;
      }
      case "assistant": {
        const a = OpenCodeAssistantSchema.safeParse(data);
        if (!a.success) {
          addSkip(skipped, "assistant record Arbor cannot read");
          break;
        }
        const ref = a.data.model
          ? ModelRefSchema.safeParse(`${a.data.model.providerID.toLowerCase()}/${a.data.model.id}`)
          : undefined;
        if (ref?.success && ref.data !== model) {
          model = ref.data;
          b.add(b.uniqueId(`${eid}-model`), b.last?.id ?? null, at, { type: "model_change", model: ref.data });
        }
        const { content, results } = assistantParts(a.data.content, skipped);
        const t = a.data.tokens;
        const n = (v: number | undefined) => (v !== undefined && v > 0 ? Math.round(v) : 0);
        append(eid, at, {
          role: "assistant",
          content,
          ...(model ? { model } : {}),
          ...(t
            ? {
                tokens: {
                  input: n(t.input),
                  output: n(t.output),
                  reasoning: n(t.reasoning),
                  cacheRead: n(t.cache?.read),
                  cacheWrite: n(t.cache?.write),
                },
              }
            : {}),
          // OpenCode records 0 for a model it has no price for: only a positive cost is a known price.
          ...(a.data.cost !== undefined && a.data.cost > 0 ? { cost: a.data.cost } : {}),
          ...(a.data.finish ? { finishReason: a.data.finish } : {}),
          ...(a.data.error !== undefined && a.data.error !== null ? { error: { message: errorText(a.data.error) } } : {}),
        } as Message);
        if (results.length) append(`${eid}-results`, at, { role: "tool", content: results } as Message);
        break;
      }
      case "compaction":
        b.add(b.uniqueId(eid), b.last?.id ?? null, at, {
          type: "compaction",
          summary: typeof data.summary === "string" ? data.summary : typeof data.text === "string" ? data.text : "",
          firstKeptEntryId: null,
          tokensBefore: 0,
        });
        break;
      case "model-switched": {
        const m = data.model as { id?: unknown; providerID?: unknown } | undefined;
        const ref = ModelRefSchema.safeParse(`${String(m?.providerID ?? "").toLowerCase()}/${String(m?.id ?? "")}`);
        if (ref.success) {
          model = ref.data;
          b.add(b.uniqueId(eid), b.last?.id ?? null, at, { type: "model_change", model: ref.data });
        } else addSkip(skipped, "model-switched record without a model");
        break;
      }
      case "shell":
      case "agent-switched":
        b.add(b.uniqueId(eid), b.last?.id ?? null, at, { type: "custom", customType: `opencode.${row.type}`, data });
        break;
      case "idle":
        addSkip(skipped, "idle record (the end of a turn)");
        break;
      default:
        addSkip(skipped, `unknown record type "${row.type}"`);
    }
  }
  return b.finish();
}

function assistantParts(raw: unknown[], skipped: SkipCounts): { content: Part[]; results: Part[] } {
  const content: Part[] = [];
  const results: Part[] = [];
  for (const r of raw) {
    const p = OpenCodePartSchema.safeParse(r);
    if (!p.success) {
      addSkip(skipped, `assistant part "${String((r as { type?: unknown })?.type)}"`);
      continue;
    }
    const part = p.data;
    switch (part.type) {
      case "text":
        content.push({ type: "text", text: part.text });
        break;
      case "reasoning":
        content.push({ type: "reasoning", text: part.text });
        break;
      case "tool": {
        content.push({ type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.state.input ?? {} });
        const status = part.state.status;
        if (status === "completed" || status === "error")
          results.push({ type: "tool-result", toolCallId: part.id, toolName: part.name, output: toolOutput(part.state) });
        else addSkip(skipped, `tool call still "${status ?? "?"}" when recorded (no result)`);
        break;
      }
    }
  }
  return { content, results };
}

function toolOutput(state: {
  status?: string;
  content?: Array<{ type: string; text?: string }>;
  output?: unknown;
  error?: unknown;
}): ToolResultOutput {
  const text = state.content?.map((c) => c.text ?? "").join("") ?? (typeof state.output === "string" ? state.output : undefined);
  if (state.status === "error") return { type: "error-text", value: text || errorText(state.error) };
  return text !== undefined ? { type: "text", value: text } : { type: "json", value: state.output ?? null };
}

function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  const m = (e as { message?: unknown; data?: { message?: unknown } })?.data?.message ?? (e as { message?: unknown })?.message;
  return typeof m === "string" ? m : JSON.stringify(e);
}

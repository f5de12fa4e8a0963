import { ArborError } from "../../errors.js";
import { ModelRefSchema, type ThinkingLevel, ThinkingLevelSchema } from "../../model/entry.js";
import type { Message } from "../../model/message.js";
import type { FilePart, Part, ToolResultOutput } from "../../model/parts.js";
import { SessionBuilder } from "../build.js";
import { importedSessionId } from "../ids.js";
import { parseJsonLines } from "../jsonl.js";
import { isoTime } from "../time.js";
import { addSkip, type Conversion, readOrSkip, type SkipCounts } from "../types.js";
import {
  CodexCallOutputSchema,
  CodexCompactedSchema,
  CodexFunctionCallSchema,
  CodexLineSchema,
  CodexMessageSchema,
  CodexReasoningSchema,
  CodexSessionMetaSchema,
  CodexTokenCountSchema,
  CodexTurnContextSchema,
  CodexWebSearchSchema,
} from "./schema.js";

type Item = Record<string, unknown> & { type?: string };

/**
 * A Codex CLI rollout as an Arbor session. The conversation is the `response_item` stream: the
 * items one model response produced (reasoning, text, tool calls) become one assistant message,
 * each call's output a tool message. `event_msg` lines repeat it for the screen and are skipped,
 * except token counts, which become the usage of the response they follow. Pure.
 */
export function convertCodexSession(text: string, source = "the file"): Conversion {
  const skipped: SkipCounts = {};
  const { lines, bad } = parseJsonLines(text);
  if (bad.length) addSkip(skipped, "line is not JSON", bad.length);
  const metaLine = lines.find((l) => (l.value as { type?: unknown })?.type === "session_meta");
  const meta = CodexSessionMetaSchema.safeParse((metaLine?.value as { payload?: unknown } | undefined)?.payload);
  if (!metaLine || !meta.success) {
    throw new ArborError(
      "invalid_input",
      `${source} is not a Codex rollout: it has no session_meta line with an id. Give a rollout-*.jsonl from ~/.codex/sessions.`,
    );
  }
  const m = meta.data;
  const b = new SessionBuilder(
    {
      id: importedSessionId("codex", m.id),
      origin: { agent: "codex", sourceId: m.id, ...(m.cli_version ? { version: m.cli_version } : {}) },
      ...(m.cwd ? { cwd: m.cwd } : {}),
    },
    skipped,
    isoTime(m.timestamp ?? (metaLine.value as { timestamp?: unknown }).timestamp) ?? new Date(0).toISOString(),
  );
  const rollout = new Rollout(b, skipped, (m.model_provider ?? "openai").toLowerCase());
  for (const { line, value } of lines) {
    const parsed = CodexLineSchema.safeParse(value);
    if (!parsed.success) {
      addSkip(skipped, "line without a type");
      continue;
    }
    const { type, payload = {} } = parsed.data;
    const at = isoTime(parsed.data.timestamp);
    switch (type) {
      case "session_meta": {
        const instructions = typeof m.base_instructions === "string" ? m.base_instructions : m.base_instructions?.text;
        if (line === metaLine.line && instructions)
          rollout.add(`l${line}`, at, { role: "system", content: [{ type: "text", text: instructions }] });
        break;
      }
      case "turn_context":
        rollout.turnContext(payload, line, at);
        break;
      case "response_item":
        rollout.responseItem(payload as Item, line, at);
        break;
      case "compacted":
        rollout.compacted(payload, line, at);
        break;
      case "event_msg":
        rollout.event(payload as Item);
        break;
      default:
        addSkip(skipped, `unknown line type "${type}"`);
    }
  }
  rollout.flush();
  const out = b.finish();
  if (rollout.title) out.session.title = rollout.title.slice(0, 500);
  return { sessions: [out], skipped };
}

/** The state of reading one rollout, line by line. */
class Rollout {
  title: string | undefined;
  private readonly toolNames = new Map<string, string>();
  private model: string | undefined;
  private effort: ThinkingLevel | undefined;
  /** The assistant message being gathered from consecutive response items. */
  private turn: { content: Part[]; at: string | undefined; line: number } | undefined;
  /** The last assistant message since the previous token count: where the next count belongs. */
  private unpriced: Message | undefined;

  constructor(
    private readonly b: SessionBuilder,
    private readonly skipped: SkipCounts,
    private readonly provider: string,
  ) {}

  add(id: string, at: string | undefined, message: Message): void {
    this.b.add(id, this.b.last?.id ?? null, at, { type: "message", message });
  }

  flush(): void {
    if (!this.turn) return;
    const message = { role: "assistant", content: this.turn.content, ...(this.model ? { model: this.model } : {}) } as Message;
    this.add(`l${this.turn.line}`, this.turn.at, message);
    this.unpriced = message;
    this.turn = undefined;
  }

  private gather(line: number, at: string | undefined, parts: Part[]): void {
    this.turn ??= { content: [], at, line };
    this.turn.content.push(...parts);
  }

  turnContext(payload: unknown, line: number, at: string | undefined): void {
    const t = CodexTurnContextSchema.safeParse(payload);
    if (!t.success) return;
    this.flush();
    const ref = t.data.model ? ModelRefSchema.safeParse(`${this.provider}/${t.data.model}`) : undefined;
    if (ref?.success && ref.data !== this.model) {
      this.model = ref.data;
      this.b.add(`l${line}`, this.b.last?.id ?? null, at, { type: "model_change", model: ref.data });
    }
    const level = ThinkingLevelSchema.safeParse(t.data.effort);
    if (level.success && level.data !== this.effort) {
      this.effort = level.data;
      this.b.add(`l${line}-effort`, this.b.last?.id ?? null, at, { type: "thinking_level_change", thinkingLevel: level.data });
    }
  }

  compacted(payload: unknown, line: number, at: string | undefined): void {
    const c = CodexCompactedSchema.safeParse(payload);
    if (!c.success) {
      addSkip(this.skipped, "compacted line without a message");
      return;
    }
    this.flush();
    this.b.add(`l${line}`, this.b.last?.id ?? null, at, {
      type: "compaction",
      summary: c.data.message,
      firstKeptEntryId: null,
      tokensBefore: 0,
    });
  }

  event(item: Item): void {
    const tc = CodexTokenCountSchema.safeParse(item);
    if (!tc.success) {
      if (item.type === "user_message" && typeof item.message === "string" && this.title === undefined)
        this.title = item.message.split("\n")[0];
      addSkip(this.skipped, `event_msg "${item.type ?? "?"}" (repeats the conversation for the screen)`);
      return;
    }
    this.flush();
    const u = tc.data.info?.last_token_usage;
    if (!u || !this.unpriced) return;
    const n = (v: number | undefined) => (v !== undefined && v > 0 ? Math.round(v) : 0);
    const cached = n(u.cached_input_tokens);
    this.unpriced.tokens = {
      input: Math.max(0, n(u.input_tokens) - cached),
      output: n(u.output_tokens),
      reasoning: n(u.reasoning_output_tokens),
      cacheRead: cached,
      cacheWrite: 0,
    };
    this.unpriced = undefined;
  }

  responseItem(item: Item, line: number, at: string | undefined): void {
    switch (item.type) {
      case "message":
        this.message(item, line, at);
        break;
      case "reasoning": {
        const r = readOrSkip(CodexReasoningSchema, item, this.skipped, "reasoning item");
        if (!r) break;
        const text = [...(r.summary ?? []), ...(r.content ?? [])]
          .map((s) => s.text ?? "")
          .filter(Boolean)
          .join("\n\n");
        const enc = r.encrypted_content;
        this.gather(line, at, [
          { type: "reasoning", text, ...(enc ? { providerMetadata: { openai: { reasoningEncryptedContent: enc } } } : {}) },
        ]);
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        const c = readOrSkip(CodexFunctionCallSchema, item, this.skipped, "tool call");
        if (!c) break;
        this.toolNames.set(c.call_id, c.name);
        const input = c.type === "function_call" ? jsonOrText(c.arguments ?? "{}") : (c.input ?? "");
        this.gather(line, at, [{ type: "tool-call", toolCallId: c.call_id, toolName: c.name, input }]);
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        const o = readOrSkip(CodexCallOutputSchema, item, this.skipped, "tool output");
        if (!o) break;
        this.flush();
        const toolName = this.toolNames.get(o.call_id) ?? "unknown";
        this.add(`l${line}`, at, {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: o.call_id, toolName, output: outputOf(o.output) }],
        });
        break;
      }
      case "web_search_call": {
        const w = readOrSkip(CodexWebSearchSchema, item, this.skipped, "web search");
        if (!w) break;
        // The rollout records the search and its status, not what it found: the status is the result kept.
        const id = `web_search-l${line}`;
        this.gather(line, at, [{ type: "tool-call", toolCallId: id, toolName: "web_search", input: w.action ?? {} }]);
        this.flush();
        this.add(`l${line}-result`, at, {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: id,
              toolName: "web_search",
              output: { type: "json", value: { status: w.status ?? "unknown" } },
            },
          ],
        });
        break;
      }
      default:
        addSkip(this.skipped, `response_item "${item.type ?? "?"}" Arbor has no place for`);
    }
  }

  private message(item: Item, line: number, at: string | undefined): void {
    const msg = readOrSkip(CodexMessageSchema, item, this.skipped, "message item");
    if (!msg) return;
    const texts = msg.content
      .filter((c) => typeof c.text === "string")
      .map((c) => ({ type: "text" as const, text: c.text as string }));
    if (msg.role === "assistant") {
      this.gather(line, at, texts);
      return;
    }
    this.flush();
    const files = msg.content.filter((c) => c.type === "input_image" && c.image_url).map((c) => imagePart(c.image_url as string));
    if (msg.role === "user") this.add(`l${line}`, at, { role: "user", content: [...texts, ...files] });
    else this.add(`l${line}`, at, { role: "system", content: texts, codexRole: msg.role } as Message);
  }
}

function jsonOrText(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function outputOf(raw: unknown): ToolResultOutput {
  if (typeof raw === "string") return { type: "text", value: raw };
  const o = raw as { content?: unknown; success?: unknown };
  if (typeof o?.content === "string") return { type: o.success === false ? "error-text" : "text", value: o.content };
  return { type: "json", value: raw ?? null };
}

function imagePart(url: string): FilePart {
  const m = /^data:([^;]+);base64,(.*)$/s.exec(url);
  return m ? { type: "file", mediaType: m[1] as string, data: m[2] as string } : { type: "file", mediaType: "image/*", url };
}

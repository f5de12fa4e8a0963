import type { Entry, MessageEntry } from "../model/entry.js";
import type { AssistantMessage, ToolMessage } from "../model/message.js";
import type { ToolResultPart } from "../model/parts.js";
import { deletedEntryIds } from "../session/delete-entry.js";
import { purgeMarkOf } from "../session/purge-entry.js";
import { traceTimestamp } from "./trace-time.js";

/**
 * The message trace over a session path, pure: `Message → AgentStep → ToolCall → ToolResult`.
 * A request is a user message and the assistant steps and tool results that answer it, so each
 * request gives up to two messages sharing a `requestId`: the user's (no steps) and the answer (one
 * step per model call). Names are core's camelCase; the server maps them to the wire's snake_case.
 */

export interface TraceToolResult {
  success: boolean;
  /** Human-readable output (JSON results as JSON text). */
  output: string;
  /** Machine-readable data: the tool's metadata, or a JSON result's object. */
  data?: Record<string, unknown>;
  /** Set exactly when `success` is false. */
  error?: string;
}

export interface TraceToolCall {
  /** The provider's tool call id. */
  id: string;
  name: string;
  args: unknown;
  /** Null while the call has no result on the path (running, or the run stopped first). */
  result: TraceToolResult | null;
  /**
   * The model's reflection on the result: one a tool result carries, else what the model thought
   * (its reasoning) or said first in the step after the result, cut to 1,000 characters. Absent
   * while no step has followed.
   */
  reflection?: string;
  /** Milliseconds the tool ran; 0 without a result. */
  durationMs: number;
}

export interface TraceStep {
  /** 0-based, in the order the model was called. */
  iteration: number;
  /** The step's reasoning, and its text when it went on to call tools (a final step's text is the answer). */
  thought: string;
  toolCalls: TraceToolCall[];
  /** RFC 3339 with nanoseconds (see trace-time.ts). */
  timestamp: string;
  /** The assistant entry of this step. */
  entryId: string;
}

export interface TraceMessage {
  /** The user message's entry id, or the answer's first assistant entry id. */
  id: string;
  sessionId: string;
  /** The user message's entry id (the first assistant entry's when no user message opened the request). */
  requestId: string;
  content: string;
  role: "user" | "assistant";
  /** The knowledge-base passages the answer's `search_knowledge_base` calls returned; empty for a user message. */
  knowledgeReferences: unknown[];
  agentSteps: TraceStep[];
  /** A user message is complete; an answer is once its last step called no tools. */
  isCompleted: boolean;
  /** RFC 3339 with nanoseconds: the first entry's time (the paging key), and the last entry's. */
  createdAt: string;
  updatedAt: string;
  /** Every entry the message is made of; deleting it deletes these. */
  entryIds: string[];
  /** Deleted: its entries are tombstones, their content erased (seen on a branch the deletion was not made on). */
  deleted?: true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(parts: readonly { type: string; text?: string; synthetic?: unknown }[], type: "text" | "reasoning"): string {
  return parts
    .filter((p) => p.type === type && p.synthetic !== true && typeof p.text === "string" && p.text !== "")
    .map((p) => p.text as string)
    .join("\n");
}

/**
 * Why a command that ran to its end still failed: a process that exited non-zero, was killed by a
 * signal or timed out (the metadata `bash` and other process tools record). Its output is a normal
 * result the model reads, but a trace reader looking for failed calls wants it.
 */
function processFailure(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  if (metadata.timedOut === true) return "The command timed out.";
  if (typeof metadata.signal === "string" && metadata.signal !== "") return `The command was terminated by ${metadata.signal}.`;
  if (typeof metadata.exitCode === "number" && metadata.exitCode !== 0)
    return `The command exited with code ${metadata.exitCode}.`;
  return undefined;
}

function toolResult(part: ToolResultPart, message: ToolMessage): TraceToolResult {
  const { output } = part;
  const text = typeof output.value === "string" ? output.value : (JSON.stringify(output.value) ?? "");
  const failedProcess = processFailure(part.metadata);
  const success = (output.type === "text" || output.type === "json") && failedProcess === undefined;
  const result: TraceToolResult = { success, output: text };
  if (isRecord(part.metadata)) result.data = part.metadata;
  else if ((output.type === "json" || output.type === "error-json") && isRecord(output.value)) result.data = output.value;
  if (!success) result.error = message.error?.message ?? failedProcess ?? text;
  return result;
}

/** How much of the next step's thought a reflection keeps: enough to read, not a second copy of the answer. */
const REFLECTION_CHARS = 1_000;

/**
 * The model's reflection on the results of a step's calls: what it thought or said first when it
 * next spoke (its reasoning, else its text), cut to {@link REFLECTION_CHARS}. Set on each call of
 * the previous step that has a result and no reflection of its own.
 */
function reflectOn(previous: TraceStep | undefined, next: AssistantMessage): void {
  if (!previous) return;
  const said = textOf(next.content, "reasoning") || textOf(next.content, "text");
  if (said === "") return;
  const reflection = said.length > REFLECTION_CHARS ? `${said.slice(0, REFLECTION_CHARS)}…` : said;
  for (const call of previous.toolCalls) {
    if (call.result && call.reflection === undefined) call.reflection = reflection;
  }
}

function step(entry: MessageEntry, message: AssistantMessage, iteration: number, rank: number): TraceStep {
  const calls = message.content.filter((p) => p.type === "tool-call");
  const said = textOf(message.content, "text");
  const thought = [textOf(message.content, "reasoning"), calls.length > 0 ? said : ""].filter((t) => t !== "").join("\n\n");
  return {
    iteration,
    thought,
    toolCalls: calls.map((p) => ({ id: p.toolCallId, name: p.toolName, args: p.input, result: null, durationMs: 0 })),
    timestamp: traceTimestamp(entry.timestamp, rank),
    entryId: entry.id,
  };
}

/** A request being read: its answer so far, and its calls by id for the results that follow. */
interface OpenRequest {
  id: string;
  answer?: TraceMessage;
  /** The last step's text, the answer's content once it is the final step. */
  lastText: string;
  calls: Map<string, TraceToolCall>;
}

/**
 * The trace of a path (root first), oldest first. Messages deleted by a delete entry on the path are
 * left out; ids, request ids, iterations and timestamps are computed over the whole path first, so
 * a delete never renumbers what remains.
 */
export function messageTrace(sessionId: string, path: readonly Entry[]): TraceMessage[] {
  const deleted = deletedEntryIds(path);
  const out: TraceMessage[] = [];
  const ranks = new Map<string, number>();
  let request: OpenRequest | undefined;

  const close = () => {
    const answer = request?.answer;
    if (!answer) return;
    const last = answer.agentSteps.at(-1);
    answer.isCompleted = last !== undefined && last.toolCalls.length === 0;
    answer.content = answer.isCompleted ? (request?.lastText ?? "") : "";
  };

  for (const entry of path) {
    const rank = ranks.get(entry.timestamp) ?? 0;
    ranks.set(entry.timestamp, rank + 1);
    if (entry.type !== "message") continue;
    const at = traceTimestamp(entry.timestamp, rank);
    const message = entry.message;
    if (message.role === "user") {
      close();
      request = { id: entry.id, lastText: "", calls: new Map() };
      out.push({
        id: entry.id,
        sessionId,
        requestId: entry.id,
        content: textOf(message.content, "text"),
        role: "user",
        knowledgeReferences: [],
        agentSteps: [],
        isCompleted: true,
        createdAt: at,
        updatedAt: at,
        entryIds: [entry.id],
        ...(purgeMarkOf(entry) ? { deleted: true as const } : {}),
      });
    } else if (message.role === "assistant") {
      request ??= { id: entry.id, lastText: "", calls: new Map() };
      if (!request.answer) {
        request.answer = {
          id: entry.id,
          sessionId,
          requestId: request.id,
          content: "",
          role: "assistant",
          knowledgeReferences: [],
          agentSteps: [],
          isCompleted: false,
          createdAt: at,
          updatedAt: at,
          entryIds: [],
          ...(purgeMarkOf(entry) ? { deleted: true as const } : {}),
        };
        out.push(request.answer);
      }
      const s = step(entry, message, request.answer.agentSteps.length, rank);
      reflectOn(request.answer.agentSteps.at(-1), message);
      request.answer.agentSteps.push(s);
      request.answer.entryIds.push(entry.id);
      request.answer.updatedAt = at;
      request.lastText = textOf(message.content, "text");
      for (const call of s.toolCalls) request.calls.set(call.id, call);
    } else if (message.role === "tool" && request?.answer) {
      let matched = false;
      for (const part of message.content) {
        const call = request.calls.get(part.toolCallId);
        if (!call) continue;
        matched = true;
        call.result = toolResult(part, message);
        request.answer.knowledgeReferences.push(...knowledgeReferencesOf(part));
        call.durationMs = Math.max(0, Math.round(message.durationMs ?? 0));
        if (typeof part.reflection === "string" && part.reflection !== "") call.reflection = part.reflection;
      }
      if (matched) {
        request.answer.entryIds.push(entry.id);
        request.answer.updatedAt = at;
      }
    }
  }
  close();
  return deleted.size === 0 ? out : withoutDeleted(out, deleted);
}

/** Drops deleted messages, and deleted steps of an answer that has others left. */
function withoutDeleted(messages: TraceMessage[], deleted: ReadonlySet<string>): TraceMessage[] {
  const out: TraceMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      if (!deleted.has(message.id)) out.push(message);
      continue;
    }
    const steps = message.agentSteps.filter((s) => !deleted.has(s.entryId));
    if (steps.length === 0) continue;
    out.push({ ...message, agentSteps: steps, entryIds: message.entryIds.filter((id) => !deleted.has(id)) });
  }
  return out;
}

/** The passages a `search_knowledge_base` result cited (kept on its metadata), for the answer's `knowledge_references`. */
function knowledgeReferencesOf(part: { toolName: string; metadata?: unknown }): unknown[] {
  if (part.toolName !== "search_knowledge_base") return [];
  const references = (part.metadata as { references?: unknown } | undefined)?.references;
  return Array.isArray(references) ? references : [];
}

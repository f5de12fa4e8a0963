import type { RunEvent, WatchEvent } from "@arbor/core";
import type { RunEventOf } from "@arbor/core/wire";
import type { UIMessage, UIMessageChunk } from "ai";
import { type AnswerOf, type Ask, elicitationElsewhere, questionElsewhere } from "../shared/asks.js";
import { type BlockWriter, DeltaBlocks } from "../shared/delta-blocks.js";
import type { RunEventWire, StreamEnd, WireEvent } from "../shared/run-output.js";
import { unreachable } from "../shared/unreachable.js";
import type { ArborDataParts } from "./ui-data-parts.js";

/** Where a UI stream stands in the session's event log, sent as message metadata so a client can say where it left off. */
export interface ArborUIMetadata {
  sessionId: string;
  /** Log id of the last run event this stream turned into chunks. */
  lastEventId?: number;
}

/**
 * Arbor's own events as typed `data-*` parts (the part type is `data-<key>`): run events (plan,
 * progress, model calls, compaction) and the trace watch's (goals, sub-agents), and branch moves.
 */
export type ArborUIDataTypes = ArborDataParts;

/** The UI message a `useChat` client of `POST /api/ui/chat` holds. */
export type ArborUIMessage = UIMessage<ArborUIMetadata, ArborUIDataTypes>;
export type ArborUIChunk = UIMessageChunk<ArborUIMetadata, ArborUIDataTypes>;

/** A permission ask that has no tool call of its own is shown as a call of this tool. */
export const PERMISSION_TOOL = "permission";
/** A plan waiting for approval is shown as a call of this tool, approved like a tool call. */
export const PLAN_APPROVAL_TOOL = "plan_approval";
/** Plan approvals' ids carry this prefix, so an answer says which kind of ask it is for. */
const PLAN_APPROVAL_PREFIX = "plan:";

export const planApprovalId = (planId: string) => `${PLAN_APPROVAL_PREFIX}${planId}`;
export const planCallId = (planId: string) => `${PLAN_APPROVAL_TOOL}-${planId}`;
/** The plan id of a plan approval's id; undefined for a permission ask's. */
export function planIdOf(approvalId: string): string | undefined {
  return approvalId.startsWith(PLAN_APPROVAL_PREFIX) ? approvalId.slice(PLAN_APPROVAL_PREFIX.length) : undefined;
}

/** What `addToolApprovalResponse` leaves on an approval-responded tool part. */
export interface UiApproval {
  id: string;
  approved: boolean;
  reason?: string;
}

/** A client's approval in the runtime's terms: a permission ask is allowed once or rejected, a plan approved or not. */
export const answerOfApproval: AnswerOf<UiApproval> = ({ id, approved, reason }) => {
  const planId = planIdOf(id);
  if (planId !== undefined) return { kind: "plan", planId, approved, ...(reason === undefined ? {} : { reason }) };
  return { kind: "permission", id, reply: approved ? "once" : "reject", ...(reason === undefined ? {} : { message: reason }) };
};

/** The approval id an ask is shown with. */
export const approvalIdOf = (ask: Ask): string => (ask.kind === "plan" ? planApprovalId(ask.planId) : ask.id);

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A model's malformed input is still shown, as the text it sent.
    return text;
  }
}

/** The `node` of the model calls that write a compaction's summary. */
const COMPACTION_NODE = "compaction";

function compactionDone(event: RunEventOf<"llm_end">): ArborDataParts["compaction"] {
  return {
    status: "done",
    call_id: event.call_id,
    model: event.model,
    duration_ms: event.duration_ms,
    ...(event.input_tokens === undefined ? {} : { input_tokens: event.input_tokens }),
    ...(event.output_tokens === undefined ? {} : { output_tokens: event.output_tokens }),
  };
}

function unlogged<E extends { event: string; event_id: number; timestamp: string }>(
  event: E,
): Omit<E, "event" | "event_id" | "timestamp"> {
  const { event: _name, event_id: _id, timestamp: _at, ...rest } = event;
  return rest;
}

function strip<E extends { type: string; session_id: string }>(event: E): Omit<E, "type" | "session_id"> {
  const { type: _type, session_id: _session, ...rest } = event;
  return rest;
}

/** The UI message stream's text and reasoning parts. */
const UI_BLOCKS: BlockWriter<ArborUIChunk> = {
  start: (kind, id) => [{ type: kind === "text" ? "text-start" : "reasoning-start", id }],
  delta: (kind, id, delta) => (kind === "text" ? { type: "text-delta", id, delta } : { type: "reasoning-delta", id, delta }),
  end: (kind, id) => [{ type: kind === "text" ? "text-end" : "reasoning-end", id }],
};

/**
 * Turns one session's run events into UI message chunks. The protocol wants text and reasoning in
 * start/delta/end blocks while the run stream sends bare deltas (see `DeltaBlocks`). It also tracks
 * the log id of the last event, which `start` and `finish` report as message metadata.
 */
export class RunEventChunker implements RunEventWire<ArborUIChunk> {
  /** Log id of the last run event turned into chunks. */
  private lastId: number | undefined;
  private blockCount = 0;
  private readonly blocks = new DeltaBlocks<ArborUIChunk>(UI_BLOCKS, (kind) => `${kind}-${++this.blockCount}`);
  private readonly toolCalls = new Set<string>();
  private compactions = 0;
  /** The part id of each summary call in progress, by its call id. */
  private readonly compactionParts = new Map<string, string>();
  /** Each elicitation this stream showed, by its id: its part is sent again when it ends. */
  private readonly elicitations = new Map<string, ArborDataParts["elicitation"]>();
  private readonly sessionId: string;

  /** `after`: the log id the stream continues after, reported until an event is read. */
  constructor(sessionId: string, after?: number) {
    this.sessionId = sessionId;
    this.lastId = after;
  }

  event(e: WireEvent): ArborUIChunk[] {
    if (e.id !== undefined) this.lastId = e.id;
    return this.chunks(e.event);
  }

  ask(ask: Ask, e: WireEvent): ArborUIChunk[] {
    if (e.id !== undefined) this.lastId = e.id;
    return this.askChunks(ask);
  }

  end(end: StreamEnd): ArborUIChunk[] {
    switch (end.kind) {
      case "ended":
        return this.finish(this.lastId, end.status === "done" ? "stop" : "error");
      case "waiting":
        // The run waits for the answer; the client sends it with its next request, which continues from here.
        return this.finish(this.lastId, "tool-calls");
      case "closed":
        return this.finish(this.lastId, "stop");
      case "expired":
        return [
          {
            type: "error",
            errorText: `This stream fell behind further than the event log keeps; read the session with GET /api/sessions/${end.sessionId}.`,
          },
        ];
      case "failed":
        return [{ type: "error", errorText: `Reading the run's events failed: ${end.message}` }];
      default:
        return unreachable("end", end);
    }
  }

  /** The log id of the last event read (or the one the stream continues after). */
  get lastEventId(): number | undefined {
    return this.lastId;
  }

  start(lastEventId?: number): ArborUIChunk {
    return { type: "start", messageMetadata: this.metadata(lastEventId) };
  }

  /** Ends the message for now (the run finished, or waits for an approval the client gives in its next request). */
  finish(lastEventId: number | undefined, reason: "stop" | "tool-calls" | "error"): ArborUIChunk[] {
    return [...this.blocks.close(), { type: "finish", finishReason: reason, messageMetadata: this.metadata(lastEventId) }];
  }

  /** The chunks one run event becomes. */
  chunks(event: RunEvent): ArborUIChunk[] {
    switch (event.type) {
      case "token":
      case "reasoning":
        return this.blocks.streamed(event);
      case "tool_start":
        this.toolCalls.add(event.call_id);
        return [
          ...this.blocks.close(),
          {
            type: "tool-input-available",
            toolCallId: event.call_id,
            toolName: event.tool,
            input: parseInput(event.input),
            dynamic: true,
          },
        ];
      case "tool_end":
        return [
          ...this.blocks.close(),
          event.is_error
            ? { type: "tool-output-error", toolCallId: event.call_id, errorText: event.output, dynamic: true }
            : { type: "tool-output-available", toolCallId: event.call_id, output: event.output, dynamic: true },
        ];
      case "tool_progress":
        return [{ type: "data-tool-progress", id: event.call_id, data: strip(event), transient: true }];
      case "llm_start":
        if (event.node === COMPACTION_NODE) {
          // Each compaction's summarizer numbers its calls from 1, so the part's id is this stream's count.
          const id = `compaction-${++this.compactions}`;
          this.compactionParts.set(event.call_id, id);
          const data = { status: "running" as const, call_id: event.call_id, model: event.model };
          return [...this.blocks.close(), { type: "data-compaction", id, data }];
        }
        return [...this.blocks.close(), { type: "start-step" }];
      case "llm_end": {
        if (event.node === COMPACTION_NODE) {
          const id = this.compactionParts.get(event.call_id) ?? `compaction-${++this.compactions}`;
          this.compactionParts.delete(event.call_id);
          return [{ type: "data-compaction", id, data: compactionDone(event) }];
        }
        const { input: _input, output: _output, ...call } = strip(event);
        return [...this.blocks.close(), { type: "data-model-call", id: event.call_id, data: call }, { type: "finish-step" }];
      }
      case "permission_request":
        return this.askChunks({ kind: "permission", id: event.id, event });
      case "plan_created":
        return [...this.blocks.close(), { type: "data-plan-created", id: event.plan.plan_id, data: strip(event) }];
      case "plan_updated":
        return [{ type: "data-plan-updated", data: strip(event) }];
      case "plan_revised":
        return [{ type: "data-plan-revised", data: strip(event) }];
      case "plan_approval_request":
        return this.askChunks({ kind: "plan", planId: event.plan_id, event });
      case "question_request":
        return this.askChunks({ kind: "question", id: event.id, event });
      case "done":
        return [];
      case "elicitation_request": {
        // No UI part carries the answer to an MCP server's form or page: a data part to render, and
        // the words saying where it is answered.
        const data = strip(event);
        this.elicitations.set(event.id, data);
        const text = `\n${elicitationElsewhere(event, "A chat stream")}\n`;
        return [
          ...this.blocks.close(),
          { type: "data-elicitation", id: event.id, data },
          ...this.blocks.delta("text", text),
          ...this.blocks.close(),
        ];
      }
      case "elicitation_answered": {
        // The same part again, now saying how it ended (a stream that never showed the ask has none to update).
        const asked = this.elicitations.get(event.id);
        if (asked === undefined) return [];
        this.elicitations.delete(event.id);
        return [{ type: "data-elicitation", id: event.id, data: { ...asked, action: event.action } }];
      }
      case "error":
        return [
          ...this.blocks.close(),
          { type: "error", errorText: event.code ? `${event.code}: ${event.content}` : event.content },
        ];
      default:
        return unreachable("run event", event);
    }
  }

  /**
   * The chunks one trace watch event becomes. Ids are the goal's or the sub-trace's, so a client
   * that is sent an event twice (a continued stream re-reads the log after its cursor) keeps one part.
   */
  watchChunks(event: WatchEvent): ArborUIChunk[] {
    switch (event.event) {
      case "goal_added":
        return [{ type: "data-goal-added", id: `${event.trace_id}/${event.goal.id}`, data: unlogged(event) }];
      case "goal_updated":
        return [
          {
            type: "data-goal-updated",
            id: `${event.trace_id}/${event.goal_id}/${event.event_id}`,
            data: unlogged(event),
          },
        ];
      case "sub_trace_started":
        return [{ type: "data-sub-agent-started", id: event.trace_id, data: unlogged(event) }];
      case "sub_trace_completed":
        return [{ type: "data-sub-agent-completed", id: event.trace_id, data: unlogged(event) }];
      case "trace_started":
      case "message_added":
      case "trace_completed":
        // The run's start and end reach the client as `start` and `finish`, its messages as parts.
        return [];
      default:
        return unreachable("watch event", event);
    }
  }

  /** An ask as a `tool-approval-request` on a tool call: the ask's own, or one made up to hang the approval on. */
  private askChunks(ask: Ask): ArborUIChunk[] {
    if (ask.kind === "question") {
      // No approval shape carries an answer: a data part to render, and the words saying where to answer.
      const text = `\n${questionElsewhere(ask.event, "A chat stream")}\n`;
      return [
        ...this.blocks.close(),
        { type: "data-question", id: ask.id, data: strip(ask.event) },
        ...this.blocks.delta("text", text),
        ...this.blocks.close(),
      ];
    }
    if (ask.kind === "plan") {
      const { event } = ask;
      return [
        ...this.blocks.close(),
        { type: "data-plan-approval-request", id: event.plan_id, data: strip(event) },
        {
          type: "tool-input-available",
          toolCallId: planCallId(event.plan_id),
          toolName: PLAN_APPROVAL_TOOL,
          input: { title: event.title, steps: event.steps },
          dynamic: true,
        },
        { type: "tool-approval-request", approvalId: approvalIdOf(ask), toolCallId: planCallId(event.plan_id) },
      ];
    }
    const { event } = ask;
    const out = this.blocks.close();
    let toolCallId = event.call_id;
    if (toolCallId === undefined || !this.toolCalls.has(toolCallId)) {
      // An ask outside a call this stream showed (a sub-agent's, say) gets a call of its own to hang the approval on.
      toolCallId = `${PERMISSION_TOOL}-${event.id}`;
      out.push({
        type: "tool-input-available",
        toolCallId,
        toolName: event.tool ?? PERMISSION_TOOL,
        input: { permission: event.permission, patterns: event.patterns },
        dynamic: true,
      });
    }
    out.push({
      type: "tool-approval-request",
      approvalId: approvalIdOf(ask),
      toolCallId,
      reason: `${event.permission}: ${event.patterns.join(", ")}`,
    });
    return out;
  }

  private metadata(lastEventId: number | undefined): ArborUIMetadata {
    return { sessionId: this.sessionId, ...(lastEventId === undefined ? {} : { lastEventId }) };
  }
}

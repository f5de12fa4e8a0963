import { type BaseEvent, EventType, type Interrupt } from "@ag-ui/core";
import type { RunEventOf } from "@arbor/core/wire";
import { type Ask, askIdOf, elicitationElsewhere, elicitationFields } from "../shared/asks.js";
import { type BlockWriter, DeltaBlocks } from "../shared/delta-blocks.js";
import type { RunEventWire, StreamEnd, WireEvent } from "../shared/run-output.js";
import { unreachable } from "../shared/unreachable.js";

/** Which AG-UI run this stream answers: the thread is the Arbor session, the run id the client's. */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/**
 * The interrupt id of an ask: its kind, its id, and the event id it was logged at, so the next
 * run's `resume` entry names both the ask to answer and where in the session's log to go on reading.
 */
export function interruptIdOf(ask: Ask, eventId: number | undefined): string {
  return `${ask.kind}:${askIdOf(ask)}@${eventId ?? 0}`;
}

/** An interrupt id this server made, read back; undefined when it is not one. */
export function parseInterruptId(id: string): { kind: Ask["kind"]; id: string; after: number } | undefined {
  const match = /^(permission|plan|question):(.+)@(\d{1,15})$/.exec(id);
  if (!match) return undefined;
  return { kind: match[1] as Ask["kind"], id: match[2] as string, after: Number(match[3]) };
}

/** AG-UI's text and reasoning messages; a reasoning message stands inside a reasoning phase of its own. */
const AG_UI_BLOCKS: BlockWriter<BaseEvent> = {
  start: (kind, messageId) =>
    kind === "text"
      ? [{ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent]
      : [
          { type: EventType.REASONING_START, messageId } as BaseEvent,
          { type: EventType.REASONING_MESSAGE_START, messageId, role: "reasoning" } as BaseEvent,
        ],
  delta: (kind, messageId, delta) =>
    ({
      type: kind === "text" ? EventType.TEXT_MESSAGE_CONTENT : EventType.REASONING_MESSAGE_CONTENT,
      messageId,
      delta,
    }) as BaseEvent,
  end: (kind, messageId) =>
    kind === "text"
      ? [{ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent]
      : [
          { type: EventType.REASONING_MESSAGE_END, messageId } as BaseEvent,
          { type: EventType.REASONING_END, messageId } as BaseEvent,
        ],
};

/**
 * Run events as AG-UI events. Text and reasoning arrive as deltas: a message is opened by its
 * first delta and closed by the first event of another kind, so every START has its END before
 * the next block (the client's event verifier insists on it). Tool calls are whole when Arbor
 * logs them, so each is START, one ARGS and END, and its result follows on `tool_end`.
 */
export class AgUiWire implements RunEventWire<BaseEvent> {
  private count = 0;
  private readonly blocks = new DeltaBlocks<BaseEvent>(AG_UI_BLOCKS, (kind) =>
    this.nextId(kind === "text" ? "msg" : "reasoning"),
  );

  constructor(private readonly ids: AgUiRunIds) {}

  private nextId(prefix: string): string {
    this.count += 1;
    return `${this.ids.runId}-${prefix}-${this.count}`;
  }

  /** Events of the stream's own (state, snapshots) between the run's: an open message is ended first. */
  interject(events: BaseEvent[]): BaseEvent[] {
    return events.length === 0 ? [] : [...this.blocks.close(), ...events];
  }

  /** The stream's first event. */
  started(): BaseEvent {
    return { type: EventType.RUN_STARTED, ...this.ids } as BaseEvent;
  }

  event({ event }: WireEvent): BaseEvent[] {
    switch (event.type) {
      case "token":
      case "reasoning":
        return this.blocks.streamed(event);
      case "tool_start":
        return [
          ...this.blocks.close(),
          { type: EventType.TOOL_CALL_START, toolCallId: event.call_id, toolCallName: event.tool } as BaseEvent,
          { type: EventType.TOOL_CALL_ARGS, toolCallId: event.call_id, delta: event.input } as BaseEvent,
          { type: EventType.TOOL_CALL_END, toolCallId: event.call_id } as BaseEvent,
        ];
      case "tool_end":
        return [
          ...this.blocks.close(),
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: this.nextId("tool"),
            toolCallId: event.call_id,
            content: event.output,
            role: "tool",
          } as BaseEvent,
        ];
      case "done":
        return [...this.blocks.close(), { type: EventType.RUN_FINISHED, ...this.ids, outcome: { type: "success" } } as BaseEvent];
      case "error":
        return [
          ...this.blocks.close(),
          {
            type: EventType.RUN_ERROR,
            message: event.content,
            ...(event.code === undefined ? {} : { code: event.code }),
          } as BaseEvent,
        ];
      case "plan_created":
      case "plan_updated":
      case "plan_revised":
        return [...this.blocks.close(), { type: EventType.CUSTOM, name: `arbor.${event.type}`, value: event } as BaseEvent];
      case "tool_progress":
      case "llm_start":
      case "llm_end":
      case "permission_request":
      case "plan_approval_request":
      case "question_request":
        // Model calls and progress have no AG-UI counterpart a client renders; asks go to `ask`.
        return [];
      // An MCP server's form is answered in the inspector or with `POST /api/asks/:id`, not as an AG-UI
      // interrupt (a resume could not carry it to the tool call that waits): a custom event to render.
      case "elicitation_request":
        return [
          ...this.blocks.close(),
          { type: EventType.CUSTOM, name: "arbor.elicitation", value: elicitationValue(event) } as BaseEvent,
        ];
      case "elicitation_answered":
        return [
          ...this.blocks.close(),
          {
            type: EventType.CUSTOM,
            name: "arbor.elicitation_answered",
            value: { id: event.id, server: event.server, action: event.action },
          } as BaseEvent,
        ];
      default:
        return unreachable("run event", event);
    }
  }

  /** An ask ends this AG-UI run with an interrupt; the client's next run answers it in `resume`. */
  ask(ask: Ask, e: WireEvent): BaseEvent[] {
    const interrupt: Interrupt =
      ask.kind === "question"
        ? {
            id: interruptIdOf(ask, e.id),
            reason: "question",
            message: ask.event.question,
            ...(ask.event.call_id === undefined ? {} : { toolCallId: ask.event.call_id }),
            responseSchema: questionResponseSchema(ask.event),
            metadata: {
              ...(ask.event.header === undefined ? {} : { header: ask.event.header }),
              options: ask.event.options ?? [],
            },
          }
        : ask.kind === "permission"
          ? {
              id: interruptIdOf(ask, e.id),
              reason: "tool_permission",
              message: `Allow ${ask.event.permission} ${ask.event.patterns.join(" ")}?`,
              ...(ask.event.call_id === undefined ? {} : { toolCallId: ask.event.call_id }),
              responseSchema: PERMISSION_RESPONSE_SCHEMA,
            }
          : {
              id: interruptIdOf(ask, e.id),
              reason: "plan_approval",
              message: `Approve the plan "${ask.event.title}"?`,
              responseSchema: PLAN_RESPONSE_SCHEMA,
            };
    return [
      ...this.blocks.close(),
      { type: EventType.RUN_FINISHED, ...this.ids, outcome: { type: "interrupt", interrupts: [interrupt] } } as BaseEvent,
    ];
  }

  end(end: StreamEnd): BaseEvent[] {
    switch (end.kind) {
      case "ended":
      case "waiting":
        return this.blocks.close();
      case "closed":
        return [...this.blocks.close(), { type: EventType.RUN_FINISHED, ...this.ids, outcome: { type: "success" } } as BaseEvent];
      case "expired":
        return [
          ...this.blocks.close(),
          {
            type: EventType.RUN_ERROR,
            code: "events_expired",
            message: `Events of session ${end.sessionId} are no longer kept.`,
          } as BaseEvent,
        ];
      case "failed":
        return [...this.blocks.close(), { type: EventType.RUN_ERROR, code: "internal_error", message: end.message } as BaseEvent];
      default:
        return unreachable("stream end", end);
    }
  }
}

/**
 * The `arbor.elicitation` custom event's value: the ask's id (answered with `POST /api/asks/:id`),
 * its server and mode, the server's message, a form's fields or the page to open, and `notice`,
 * the same sentence every protocol says of it (where to answer it).
 */
export function elicitationValue(event: RunEventOf<"elicitation_request">) {
  return {
    id: event.id,
    server: event.server,
    mode: event.mode,
    message: event.message,
    ...(event.call_id === undefined ? {} : { call_id: event.call_id }),
    ...(event.mode === "form" ? { fields: elicitationFields(event), requested_schema: event.requested_schema ?? {} } : {}),
    ...(event.url === undefined ? {} : { url: event.url }),
    notice: elicitationElsewhere(event, "AG-UI"),
  };
}

/** What a resume entry's payload is for a permission interrupt (a `cancelled` entry rejects). */
export const PERMISSION_RESPONSE_SCHEMA = {
  type: "object",
  properties: { reply: { enum: ["once", "always", "reject"] }, message: { type: "string" } },
  required: ["reply"],
};

/** What a resume entry's payload is for a plan interrupt. */
export const PLAN_RESPONSE_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string" } },
  required: ["approved"],
};

/**
 * What a resume entry's payload is for a question interrupt: the chosen labels or the person's own
 * words in `answers` (one unless the question takes several); a `cancelled` entry dismisses it.
 */
export function questionResponseSchema(event: { options?: { label: string }[]; multiple: boolean; custom: boolean }) {
  const item = event.options && !event.custom ? { enum: event.options.map((o) => o.label) } : { type: "string" };
  return {
    type: "object",
    properties: { answers: { type: "array", items: item, minItems: 1, ...(event.multiple ? {} : { maxItems: 1 }) } },
    required: ["answers"],
  };
}

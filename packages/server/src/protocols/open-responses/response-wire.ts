import { AWAITING_CLIENT } from "@arbor/core/session";
import type { RunEventOf } from "@arbor/core/wire";
import { type Ask, type AskRef, elicitationElsewhere, questionElsewhere, refOf } from "../shared/asks.js";
import type { RunEventWire, StreamEnd, WireEvent } from "../shared/run-output.js";
import { unreachable } from "../shared/unreachable.js";
import { approvalId } from "./output-items.js";

/** One Responses API stream event (`sequence_number` is added as it is written). */
export type StreamEvent = { type: string } & Record<string, unknown>;
type Item = { type: string; id: string } & Record<string, unknown>;

export type ResponseStatus = "in_progress" | "completed" | "failed";

/** What a response carries beside its output, fixed when it starts. */
export interface ResponseHead {
  id: string;
  model: string;
  createdAt: number;
  instructions: string | null;
  tools: unknown[];
  metadata: Record<string, string>;
  previousResponseId: string | null;
  store: boolean;
}

type Usage = NonNullable<RunEventOf<"done">["usage"]>;

/** The Responses API's usage from a run's `done`. */
export function usageOf(usage: Usage | undefined) {
  const u = usage ?? { input: 0, output: 0, reasoning: 0, cache_read: 0, cache_write: 0 };
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cache_read },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

/**
 * One response, built from its run's events: output items (messages, reasoning, Arbor's own tool
 * calls as `mcp_call`, the client's functions as `function_call`, asks as `mcp_approval_request`)
 * and the stream events announcing them. It pauses when the run waits on the client: on an ask,
 * or when every tool call in flight is a client function waiting for its output.
 */
export class ResponseWire implements RunEventWire<StreamEvent> {
  readonly output: Item[] = [];
  status: ResponseStatus = "in_progress";
  error: { code: string; message: string } | null = null;
  usage: ReturnType<typeof usageOf> | null = null;
  private open: { kind: "message" | "reasoning"; index: number; text: string } | undefined;
  /** Tool calls started in this response and not ended: whether each is the client's, and waits. */
  private readonly calls = new Map<string, { index: number; client: boolean; waiting: boolean }>();
  /** Tool calls whose end this response saw. */
  private readonly ended = new Set<string>();
  /** The asks this response ended on, for the request that answers them. */
  readonly asks: AskRef[] = [];
  private sequence = 0;

  constructor(
    private readonly head: ResponseHead,
    private readonly clientTools: ReadonlySet<string>,
  ) {}

  /** The response object as it stands. */
  snapshot() {
    return {
      id: this.head.id,
      object: "response" as const,
      created_at: this.head.createdAt,
      status: this.status,
      error: this.error,
      incomplete_details: null,
      instructions: this.head.instructions,
      metadata: this.head.metadata,
      model: this.head.model,
      output: this.output.map((item) => ({ ...item })),
      parallel_tool_calls: false,
      previous_response_id: this.head.previousResponseId,
      store: this.head.store,
      temperature: null,
      tool_choice: "auto",
      tools: this.head.tools,
      top_p: null,
      usage: this.usage,
    };
  }

  /** Whether the run now waits on the client: the response ends here and the next request continues it. */
  paused(): boolean {
    if (this.asks.length > 0) return true;
    const inFlight = [...this.calls.values()];
    return inFlight.some((c) => c.waiting) && inFlight.every((c) => c.client && c.waiting);
  }

  /**
   * Whether each of a step's calls has ended or is a client call waiting: a step's calls start one
   * after another, so a pause waits until the last of them has (the client gets them all at once).
   */
  settled(callIds: readonly string[]): boolean {
    return callIds.every((id) => this.ended.has(id) || this.calls.get(id)?.waiting === true);
  }

  /** The client's calls the run waits on: their outputs are what the next request must bring. */
  waitingCalls(): string[] {
    return [...this.calls].flatMap(([callId, call]) => (call.client && call.waiting ? [callId] : []));
  }

  start(): StreamEvent[] {
    return [this.lifecycle("response.created"), this.lifecycle("response.in_progress")];
  }

  event({ event }: WireEvent): StreamEvent[] {
    switch (event.type) {
      case "token":
        return [...this.openPart("message"), this.delta("response.output_text.delta", event.content)];
      case "reasoning":
        return [...this.openPart("reasoning"), this.delta("response.reasoning_text.delta", event.content)];
      case "tool_start":
        return this.toolStart(event);
      case "tool_progress": {
        const call = this.calls.get(event.call_id);
        if (call?.client && event.metadata?.awaiting === AWAITING_CLIENT) call.waiting = true;
        return [];
      }
      case "tool_end":
        return this.toolEnd(event);
      case "done":
        this.usage = usageOf(event.usage);
        return this.finish("completed");
      case "error":
        this.error = { code: event.code ?? "run_failed", message: event.content };
        return this.finish("failed");
      case "llm_start":
      case "llm_end":
      case "plan_created":
      case "plan_updated":
      case "plan_revised":
      case "permission_request":
      case "plan_approval_request":
      case "question_request":
        return [];
      case "elicitation_request": {
        // No response item carries an MCP server's form or page: as with a question, the response
        // says it and where it is answered, and ends; the tool call waits on it (a durable ask).
        const said = `\n${elicitationElsewhere(event, "The Responses API")}\n`;
        return [...this.openPart("message"), this.delta("response.output_text.delta", said), ...this.finish("completed", true)];
      }
      case "elicitation_answered":
        return [];
      default:
        return unreachable("run event", event);
    }
  }

  ask(ask: Ask): StreamEvent[] {
    if (ask.kind === "question") {
      // An mcp_approval_request takes only yes or no: the response says the question and where it is
      // answered, and ends; the run waits on it (a durable ask) for an answer from another door.
      const said = `\n${questionElsewhere(ask.event, "The Responses API")}\n`;
      return [...this.openPart("message"), this.delta("response.output_text.delta", said), ...this.finish("completed", true)];
    }
    this.asks.push(refOf(ask));
    const args =
      ask.kind === "permission"
        ? {
            permission: ask.event.permission,
            patterns: ask.event.patterns,
            ...(ask.event.metadata ? { metadata: ask.event.metadata } : {}),
          }
        : { title: ask.event.title, steps: ask.event.steps };
    const item: Item = {
      type: "mcp_approval_request",
      id: approvalId(ask),
      server_label: "arbor",
      name: ask.kind === "permission" ? (ask.event.tool ?? ask.event.permission) : "approve_plan",
      arguments: JSON.stringify(args),
    };
    return [...this.closeOpen(), ...this.addItem(item), this.itemDone(this.output.length - 1)];
  }

  end(end: StreamEnd): StreamEvent[] {
    switch (end.kind) {
      case "ended":
      case "closed":
      case "waiting":
        return this.finish("completed");
      case "expired":
        this.error = {
          code: "events_expired",
          message: "The run's events after this point are no longer kept; read the response with GET /v1/responses/{id}.",
        };
        return this.finish("failed");
      case "failed":
        this.error = { code: "internal_error", message: `Reading the run's events failed (${end.message}).` };
        return this.finish("failed");
      default:
        return unreachable("end", end);
    }
  }

  /**
   * Ends the response: open items are closed, and the lifecycle event sent once. A response that
   * pauses leaves Arbor's calls in flight as they are (one waiting for an approval): the response
   * that continues the run shows how they ended.
   */
  finish(status: "completed" | "failed", paused = false): StreamEvent[] {
    if (this.status !== "in_progress") return [];
    const closing = this.closeOpen();
    for (const [callId, call] of this.calls) {
      if (call.client || paused) continue;
      // A call the run ended without finishing (an abort, an error): failed, so no item is left unfinished.
      const item = this.output[call.index];
      if (item) this.output[call.index] = { ...item, status: "failed", error: "The run ended before the call finished." };
      closing.push(this.itemDone(call.index));
      this.calls.delete(callId);
    }
    this.status = status;
    return [...closing, this.lifecycle(status === "completed" ? "response.completed" : "response.failed")];
  }

  private stamp(event: StreamEvent): StreamEvent {
    return { ...event, sequence_number: this.sequence++ };
  }

  private lifecycle(type: string): StreamEvent {
    return this.stamp({ type, response: this.snapshot() });
  }

  private addItem(item: Item): StreamEvent[] {
    this.output.push(item);
    return [this.stamp({ type: "response.output_item.added", output_index: this.output.length - 1, item: { ...item } })];
  }

  private itemDone(index: number): StreamEvent {
    return this.stamp({ type: "response.output_item.done", output_index: index, item: { ...this.output[index] } });
  }

  private openPart(kind: "message" | "reasoning"): StreamEvent[] {
    if (this.open?.kind === kind) return [];
    const closing = this.closeOpen();
    const index = this.output.length;
    // Unique across responses: an id's tail names its turn and part.
    const id = `${kind === "message" ? "msg" : "rs"}_${this.head.id.slice(-24)}_${index}`;
    const item: Item =
      kind === "message"
        ? { type: "message", id, role: "assistant", status: "in_progress", content: [] }
        : { type: "reasoning", id, summary: [], content: [] };
    this.open = { kind, index, text: "" };
    const part = kind === "message" ? { type: "output_text", text: "", annotations: [] } : { type: "reasoning_text", text: "" };
    return [
      ...closing,
      ...this.addItem(item),
      this.stamp({ type: "response.content_part.added", item_id: id, output_index: index, content_index: 0, part }),
    ];
  }

  private delta(type: string, delta: string): StreamEvent {
    const open = this.open;
    if (!open) throw new Error("a delta with no open item");
    open.text += delta;
    const item = this.output[open.index] as Item;
    return this.stamp({
      type,
      item_id: item.id,
      output_index: open.index,
      content_index: 0,
      delta,
      ...(type === "response.output_text.delta" ? { logprobs: [] } : {}),
    });
  }

  private closeOpen(): StreamEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const item = this.output[open.index] as Item;
    const message = open.kind === "message";
    const part = message
      ? { type: "output_text", text: open.text, annotations: [] }
      : { type: "reasoning_text", text: open.text };
    this.output[open.index] = message ? { ...item, status: "completed", content: [part] } : { ...item, content: [part] };
    return [
      this.stamp({
        type: message ? "response.output_text.done" : "response.reasoning_text.done",
        item_id: item.id,
        output_index: open.index,
        content_index: 0,
        text: open.text,
        ...(message ? { logprobs: [] } : {}),
      }),
      this.stamp({ type: "response.content_part.done", item_id: item.id, output_index: open.index, content_index: 0, part }),
      this.itemDone(open.index),
    ];
  }

  private toolStart(event: RunEventOf<"tool_start">): StreamEvent[] {
    const closing = this.closeOpen();
    const index = this.output.length;
    const client = this.clientTools.has(event.tool);
    this.calls.set(event.call_id, { index, client, waiting: false });
    if (client) {
      const id = `fc_${event.call_id}`;
      const added = this.addItem({
        type: "function_call",
        id,
        call_id: event.call_id,
        name: event.tool,
        arguments: "",
        status: "in_progress",
      });
      this.output[index] = { ...(this.output[index] as Item), arguments: event.input, status: "completed" };
      return [
        ...closing,
        ...added,
        this.stamp({ type: "response.function_call_arguments.delta", item_id: id, output_index: index, delta: event.input }),
        this.stamp({
          type: "response.function_call_arguments.done",
          item_id: id,
          output_index: index,
          name: event.tool,
          arguments: event.input,
        }),
        this.itemDone(index),
      ];
    }
    const id = `mcp_${event.call_id}`;
    const added = this.addItem({
      type: "mcp_call",
      id,
      server_label: "arbor",
      name: event.tool,
      arguments: "",
      status: "in_progress",
    });
    this.output[index] = { ...(this.output[index] as Item), arguments: event.input };
    return [
      ...closing,
      ...added,
      this.stamp({ type: "response.mcp_call_arguments.delta", item_id: id, output_index: index, delta: event.input }),
      this.stamp({ type: "response.mcp_call_arguments.done", item_id: id, output_index: index, arguments: event.input }),
      this.stamp({ type: "response.mcp_call.in_progress", item_id: id, output_index: index }),
    ];
  }

  private toolEnd(event: RunEventOf<"tool_end">): StreamEvent[] {
    const call = this.calls.get(event.call_id);
    this.calls.delete(event.call_id);
    this.ended.add(event.call_id);
    // A client function's output is the client's own: it sent it.
    if (call?.client || (!call && this.clientTools.has(event.tool))) return [];
    // A call an earlier response of the turn started (and paused on) ends here: shown as an item of its own.
    const added = call
      ? []
      : [
          ...this.closeOpen(),
          ...this.addItem({
            type: "mcp_call",
            id: `mcp_${event.call_id}`,
            server_label: "arbor",
            name: event.tool,
            arguments: "",
            status: "in_progress",
          }),
        ];
    const index = call?.index ?? this.output.length - 1;
    const item = this.output[index] as Item;
    this.output[index] = event.is_error
      ? { ...item, status: "failed", output: null, error: event.output }
      : { ...item, status: "completed", output: event.output, error: null };
    return [
      ...added,
      this.stamp({
        type: event.is_error ? "response.mcp_call.failed" : "response.mcp_call.completed",
        item_id: item.id,
        output_index: index,
      }),
      this.itemDone(index),
    ];
  }
}

import { type AskHandler, DurableAskBase, type DurableAskOptions, offerToHandler, requestOf } from "../asks/durable-wait.js";
import { ArborError } from "../errors.js";
import type { AskRecord } from "../store/asks.js";
import { cancellingEnds } from "./call-asks.js";
import type { McpLoginListener } from "./login-asks.js";

/** A form field an MCP server may ask for (the spec's primitive schemas: string, number, integer, boolean, enums). */
export interface ElicitationField {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
  oneOf?: Array<{ const?: unknown }>;
  [key: string]: unknown;
}

/** What a server asks for in form mode: a message and a flat object schema. */
export interface ElicitationForm {
  type: "object";
  properties: Record<string, ElicitationField>;
  required?: string[];
}

interface ElicitationBase {
  id: string;
  sessionId: string;
  /** The MCP server that asks, and the tool call during which it asked. */
  server: string;
  callId?: string;
  message: string;
}

/**
 * An elicitation waiting for an answer: what `runtime.asks.listPending` shows as kind `elicitation`.
 * Form mode asks for fields; URL mode asks the person to open a page of the server's (a sign-in, a
 * payment) and say whether they will, never handing Arbor what they type there.
 */
export type PendingElicitation =
  | (ElicitationBase & { mode: "form"; requestedSchema: ElicitationForm })
  | (ElicitationBase & { mode: "url"; url: string; elicitationId: string });

/** What a server sends, before it is recorded as an ask. */
export type ElicitationRequest =
  | { mode: "form"; message: string; requestedSchema: ElicitationForm }
  | { mode: "url"; message: string; url: string; elicitationId: string };

/**
 * The answer, as MCP's ElicitResult: accepted (with the form's content; a URL elicitation's without
 * any), declined, or cancelled.
 */
export type ElicitationAnswer =
  | { action: "accept"; content?: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** Answers an elicitation when someone is at hand (a terminal); undefined leaves it to `runtime.asks`. */
export type ElicitationHandler = AskHandler<PendingElicitation, ElicitationAnswer>;

/**
 * Who hears of an elicitation while it waits: when it is asked (recorded, so answerable) and when it
 * ends, however it ends. A run passes one that turns both into run events.
 */
/** The run's ear for its tool calls' asks; a login the server wants is announced like a URL elicitation (mode `login`). */
export interface ElicitationListener extends McpLoginListener {
  asked(pending: PendingElicitation): void;
  ended(pending: PendingElicitation, answer: ElicitationAnswer): void;
}

/** Kept and waited on like every durable ask (see `AskWaiters`), with someone at hand to answer first. */
export type PendingElicitationsOptions = DurableAskOptions & { handler?: ElicitationHandler };

/** Does `value` fit the field's schema (type, enum, items)? The message says why not. */
function misfit(name: string, field: ElicitationField, value: unknown): string | undefined {
  const options = field.enum ?? field.oneOf?.map((o) => o.const);
  switch (field.type) {
    case "string":
      if (typeof value !== "string") return `${name} must be a string`;
      if (options && !options.includes(value)) return `${name} must be one of ${options.join(", ")}`;
      return undefined;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : `${name} must be a number`;
    case "integer":
      return Number.isInteger(value) ? undefined : `${name} must be an integer`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `${name} must be true or false`;
    case "array": {
      const allowed = field.items?.enum ?? field.items?.anyOf?.map((o) => o.const);
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return `${name} must be a list of strings`;
      const bad = allowed ? value.filter((v) => !allowed.includes(v)) : [];
      return bad.length > 0 ? `${name} may hold only ${allowed?.join(", ")}` : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Checks an answer against the form it answers: accepted content holds only the form's fields, each
 * of its type, and every required one (a field with a default may be left out: the MCP client fills
 * it in). Throws `invalid_input` naming every problem, so a bad answer records nothing.
 */
export function checkElicitationAnswer(pending: PendingElicitation, answer: ElicitationAnswer): ElicitationAnswer {
  if (answer.action !== "accept") return { action: answer.action };
  if (pending.mode === "url") {
    // What the person gives goes to the server's page, never through Arbor.
    if (answer.content !== undefined && Object.keys(answer.content).length > 0)
      throw new ArborError("invalid_input", "A URL elicitation is accepted without content: the page at its URL takes it.");
    return { action: "accept" };
  }
  const form = pending.requestedSchema;
  const content = answer.content ?? {};
  if (typeof content !== "object" || Array.isArray(content))
    throw new ArborError("invalid_input", "The content must be an object.");
  const problems: string[] = [];
  for (const [name, value] of Object.entries(content)) {
    const field = form.properties[name];
    if (!field) problems.push(`${name} is not a field of the form (${Object.keys(form.properties).join(", ")})`);
    else {
      const why = misfit(name, field, value);
      if (why) problems.push(why);
    }
  }
  for (const name of form.required ?? []) {
    if (!(name in content) && form.properties[name]?.default === undefined) problems.push(`${name} is required`);
  }
  if (problems.length > 0) throw new ArborError("invalid_input", `The answer does not fit the form: ${problems.join("; ")}.`);
  return { action: "accept", content };
}

/**
 * MCP elicitations (a server asking the user for input during a tool call) as durable asks of kind
 * `elicitation`, like permission asks: kept in the store, listed and answered from any process over
 * it (`runtime.asks`), the call waiting on its record (an answer here settles it at once, one from
 * elsewhere at the next read, `pollMs`); unanswered past `ttlMs` it is cancelled.
 */
export class PendingElicitations extends DurableAskBase<string, ElicitationAnswer, PendingElicitationsOptions> {
  protected readonly kind = "elicitation";

  /**
   * Records the ask and resolves with its answer; stopping (the call aborted) cancels the elicitation
   * and closes its ask. `listener` hears of it once recorded, and of its end.
   */
  async wait(request: PendingElicitationInput, signal: AbortSignal, listener?: ElicitationListener): Promise<ElicitationAnswer> {
    if (signal.aborted) return { action: "cancel" };
    const record = await this.recordCall(request);
    const id = record.id;
    const pending = pendingElicitationOf(record);
    const waited = this.waiters.wait(id, record, id, signal, cancellingEnds<ElicitationAnswer>(this.options, id));
    offerToHandler(this.options.handler, pending, signal, (answer) => this.answer(record, answer));
    if (!listener) return waited;
    // Told after the record exists, so whoever hears of it can answer it at once.
    listener.asked(pending);
    const answer = await waited;
    listener.ended(pending, answer);
    return answer;
  }

  /**
   * Answers an elicitation from any process, exactly once; throws `ask_not_found`,
   * `ask_already_answered`, `ask_expired` or `invalid_input` (an answer that does not fit the form)
   * having changed nothing.
   */
  async answer(record: AskRecord, answer: ElicitationAnswer, by?: string): Promise<AskRecord> {
    const checked = checkElicitationAnswer(pendingElicitationOf(record), answer);
    return (await this.waiters.answer(record.id, checked, by)).record;
  }
}

/** What a tool call hands over to be asked: the request, and where it came from. */
export type PendingElicitationInput = ElicitationRequest & Omit<ElicitationBase, "id">;

export function pendingElicitationOf(record: AskRecord): PendingElicitation {
  return requestOf(record);
}

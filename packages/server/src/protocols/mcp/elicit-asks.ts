import type { RunEvent, Runtime } from "@arbor/core";
import type { Principal } from "@arbor/core/store";
import type { RunEventOf } from "@arbor/core/wire";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type ClientCapabilities,
  type ElicitRequestParams,
  type ElicitResult,
  ElicitResultSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { AskAnswer } from "../shared/asks.js";
import type { ProtocolRuntime } from "../shared/runs.js";

/** Which elicitation modes a client declared it shows; undefined when it declared none. */
export interface ElicitModes {
  form: boolean;
  url: boolean;
}

/**
 * The modes of the `elicitation` capability a client declared at initialize. An empty object is
 * form mode (the SDK reads it so, as the spec says for clients older than URL mode).
 */
export function elicitModesOf(capabilities: ClientCapabilities | undefined): ElicitModes | undefined {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return undefined;
  const url = elicitation.url !== undefined;
  const form = elicitation.form !== undefined || !url;
  return { form, url };
}

export interface ElicitAsksDeps {
  runs: ProtocolRuntime;
  runtime: Runtime;
  principal: Principal | undefined;
  modes: ElicitModes;
  /** Sends `elicitation/create` on the tool call's own stream; `signal` withdraws it (notifications/cancelled). */
  send(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult>;
}

/**
 * How long an elicitation waits for the client's reply before the SDK gives it up (its default is a
 * minute, too short for a person). The ask itself waits as long as the runtime keeps it, answerable
 * at any other door meanwhile.
 */
const ELICIT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/**
 * A tool call's asks as elicitations when the client declared the capability (else undefined: the
 * progress messages alone tell of them). Sent on the call's own stream (relatedRequestId), so a
 * Streamable HTTP client needs no standalone GET stream for them.
 */
export function elicitAsksFor(
  deps: Pick<ElicitAsksDeps, "runs" | "runtime" | "principal">,
  capabilities: ClientCapabilities | undefined,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): ElicitAsks | undefined {
  const modes = elicitModesOf(capabilities);
  if (!modes) return undefined;
  return new ElicitAsks({
    ...deps,
    modes,
    send: (params, signal) =>
      extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { signal, timeout: ELICIT_TIMEOUT_MS }),
  });
}

/** One ask as an elicitation: what the client is shown, and how its reply becomes the runtime's answer. */
interface Put {
  id: string;
  callId: string | undefined;
  params: ElicitRequestParams;
  answer(result: ElicitResult): Promise<unknown>;
}

/** The fields of a form an ask is put as (MCP's primitive schemas). */
type FormFields = Extract<ElicitRequestParams, { mode?: "form" }>["requestedSchema"]["properties"];

const REPLIES = ["once", "always", "reject"] as const;
type Reply = (typeof REPLIES)[number];
const DECISIONS = ["approve", "reject"] as const;

const stringOf = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Puts a run's asks to an MCP client that declared the `elicitation` capability, as
 * `elicitation/create` requests on the run_prompt call's stream: a permission ask as a form with a
 * `reply` choice, a question as a form with its options (or free text), a plan waiting for approval
 * as a form with an approve / reject `decision` and a `comment`, a downstream MCP server's
 * form passed through, a URL or login one as URL mode when the client shows those. The reply is
 * handed to the runtime's asks API (decline and cancel refuse); nothing is written here. An ask
 * settled meanwhile (answered at another door: its tool ended, its elicitation answered, the run
 * over) withdraws the request through its AbortSignal.
 */
export class ElicitAsks {
  private readonly open = new Map<string, { abort: AbortController; callId: string | undefined; done: Promise<void> }>();

  constructor(private readonly deps: ElicitAsksDeps) {}

  /** Sees a step's events: puts new asks to the client, withdraws those settled. */
  see(events: readonly { event: RunEvent }[]): void {
    for (const { event } of events) {
      this.settle(event);
      const put = this.putOf(event);
      if (put && !this.open.has(put.id)) this.start(put);
    }
  }

  /** The run ended: every request still open is withdrawn, and waited for. */
  async close(): Promise<void> {
    const open = [...this.open.values()];
    for (const o of open) o.abort.abort();
    await Promise.all(open.map((o) => o.done));
  }

  private settle(event: RunEvent): void {
    const ended =
      event.type === "tool_end"
        ? (o: { callId: string | undefined }) => o.callId === event.call_id
        : event.type === "elicitation_answered"
          ? (_o: unknown, id: string) => id === event.id
          : // A plan's steps start (or it is revised) once it is answered, at whichever door.
            event.type === "plan_updated" || event.type === "plan_revised"
            ? (_o: unknown, id: string) => id === event.plan_id
            : undefined;
    if (!ended) return;
    for (const [id, o] of this.open) if (ended(o, id)) o.abort.abort();
  }

  private start(put: Put): void {
    const abort = new AbortController();
    const done = this.deps
      .send(put.params, abort.signal)
      .then((result) => (abort.signal.aborted ? undefined : put.answer(result)))
      // Withdrawn, answered elsewhere first, or an answer the ask does not take: the ask stays
      // with the runtime, answerable at every other door (answer_permission, the API, the CLI).
      .catch(() => {})
      .then(() => {
        this.open.delete(put.id);
      });
    this.open.set(put.id, { abort, callId: put.callId, done });
  }

  private putOf(event: RunEvent): Put | undefined {
    switch (event.type) {
      case "permission_request":
        return this.deps.modes.form ? this.permission(event) : undefined;
      case "question_request":
        return this.deps.modes.form ? this.question(event) : undefined;
      case "plan_approval_request":
        return this.deps.modes.form ? this.plan(event) : undefined;
      case "elicitation_request":
        return this.elicitation(event);
      default:
        return undefined;
    }
  }

  private permission(event: RunEventOf<"permission_request">): Put {
    const what = `${event.permission} (${event.patterns.join(", ")})`;
    return this.formPut(
      event.id,
      event.call_id,
      `The agent asks permission ${event.tool ? `for ${event.tool}: ` : ""}${what}. Allow once, always, or reject?`,
      {
        reply: { type: "string", title: "Reply", enum: [...REPLIES], default: "once" },
        message: { type: "string", title: "Message", description: "With reject: told to the model." },
      },
      "reply",
      "answering a permission ask",
      (given) => {
        const reply: Reply = REPLIES.find((r) => r === given?.reply) ?? "reject";
        const message = stringOf(given?.message);
        return { kind: "permission", id: event.id, reply, ...(message === undefined ? {} : { message }) };
      },
    );
  }

  private plan(event: RunEventOf<"plan_approval_request">): Put {
    const steps = event.steps.map((s, i) => `${i + 1}. ${s.title}`).join("; ");
    return this.formPut(
      event.plan_id,
      undefined,
      `The agent asks approval of its plan "${event.title}": ${steps}. Approve, or reject with a comment?`,
      {
        decision: { type: "string", title: "Decision", enum: [...DECISIONS], default: "approve" },
        comment: { type: "string", title: "Comment", description: "With reject: why, told to the model." },
      },
      "decision",
      "answering a plan approval",
      (given) => {
        const approved = given?.decision === "approve";
        const reason = approved ? undefined : (stringOf(given?.comment) ?? "Rejected by the MCP client.");
        return { kind: "plan", planId: event.plan_id, approved, ...(reason === undefined ? {} : { reason }) };
      },
    );
  }

  private question(event: RunEventOf<"question_request">): Put {
    const labels = event.options?.map((o) => o.label) ?? [];
    const described =
      labels.length > 0 ? `One of: ${labels.join(" / ")}${event.custom ? ", or your own words" : ""}.` : undefined;
    const field =
      labels.length > 0 && event.multiple && !event.custom
        ? { type: "array" as const, title: "Answer", items: { type: "string" as const, enum: labels } }
        : labels.length > 0 && !event.custom
          ? { type: "string" as const, title: "Answer", enum: labels }
          : { type: "string" as const, title: "Answer", ...(described === undefined ? {} : { description: described }) };
    return this.formPut(
      event.id,
      event.call_id,
      event.header ? `${event.header}: ${event.question}` : event.question,
      { answer: field },
      "answer",
      "answering a question",
      (given) => {
        const answer = given?.answer;
        const answers = (Array.isArray(answer) ? answer : [answer]).filter((a): a is string => stringOf(a) !== undefined);
        return { kind: "question", id: event.id, answer: answers.length > 0 ? { answers } : { dismissed: true } };
      },
    );
  }

  /**
   * An ask put as a form of `fields`, `required` among them. Its reply (the form's content; none
   * when declined or cancelled) becomes the runtime's answer, given as the request's principal, who
   * needs `run` for `doing`, wherever the run waits.
   */
  private formPut(
    id: string,
    callId: string | undefined,
    message: string,
    fields: FormFields,
    required: string,
    doing: string,
    answerOf: (given: ElicitResult["content"]) => AskAnswer,
  ): Put {
    const { runs, runtime, principal } = this.deps;
    return {
      id,
      callId,
      params: { mode: "form", message, requestedSchema: { type: "object", properties: fields, required: [required] } },
      answer: async (result) => {
        runtime.access.require(principal, "run", doing);
        return runs.answer(answerOf(result.action === "accept" ? result.content : undefined), principal);
      },
    };
  }

  private elicitation(event: RunEventOf<"elicitation_request">): Put | undefined {
    const { runtime, principal, modes } = this.deps;
    const by = principal === undefined ? {} : { principal };
    const message = `${event.server}: ${event.message}`;
    if (event.mode === "form") {
      if (!modes.form || event.requested_schema === undefined) return undefined;
      return {
        id: event.id,
        callId: event.call_id,
        params: { mode: "form", message, requestedSchema: event.requested_schema as never },
        answer: (result) =>
          result.action === "accept"
            ? runtime.asks.answer(event.id, true, { content: result.content ?? {}, ...by })
            : runtime.asks.answer(event.id, false, by),
      };
    }
    if (!modes.url || event.url === undefined) return undefined;
    const login = event.mode === "login";
    return {
      id: event.id,
      callId: event.call_id,
      params: { mode: "url", message, url: event.url, elicitationId: event.elicitation_id ?? event.id },
      // A login is finished by the authorization server's return to Arbor's callback, never by an answer here.
      answer: async (result) =>
        result.action === "accept"
          ? login
            ? undefined
            : runtime.asks.answer(event.id, true, by)
          : runtime.asks.answer(event.id, false, by),
    };
  }
}

import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  PermissionOption,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";
import { ArborError, type PermissionReply, type RunHandle, type RunResult, type Store } from "@arbor/core";
import { getTrace } from "@arbor/core/trace";
import { type Ask, type AskAnswer, askOf } from "../shared/asks.js";
import { readStep } from "../shared/run-output.js";
import type { ProtocolRuntime } from "../shared/runs.js";
import { clientWorkspace } from "./client-workspace.js";
import { requestErrorFor } from "./errors.js";
import { toolKindOf } from "./tool-calls.js";
import { AcpRunWire, acpAsksQuestion, goalTreePlan } from "./updates.js";

/** A session this connection knows: made with `session/new`, or loaded, resumed or forked. */
export interface AcpSession {
  id: string;
  cwd: string;
  /** The agent its prompts run (the session mode). */
  mode: string;
  /** `_arbor/continue_from_entry`: the next prompt continues from this entry instead of the leaf. */
  fromEntryId?: string;
  /** Where its prompts run: the runtime, or one with the MCP servers the editor passed too. */
  runs: ProtocolRuntime;
  /** The prompt turn going on, if any. */
  turn?: { handle: RunHandle; cancel: AbortController };
}

/** What one connection knows: the client's capabilities and the sessions it opened. */
export interface AcpConnectionState {
  readonly sessions: Map<string, AcpSession>;
  clientCapabilities: ClientCapabilities | undefined;
}

export interface TurnDeps {
  store: Store;
  client: AgentContext;
  /** What the client offered at `initialize`: its `fs/*` and `terminal/*` serve the turn's tools when offered. */
  capabilities: ClientCapabilities | undefined;
}

/** The prompt's blocks as one message: text as written, files the client attached as fenced text or links. */
export function promptText(prompt: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`@${block.uri}`);
        break;
      case "resource":
        parts.push(
          "text" in block.resource
            ? `\n<file uri="${block.resource.uri}">\n${block.resource.text}\n</file>`
            : `@${block.resource.uri}`,
        );
        break;
      default:
        throw new ArborError("invalid_input", `A prompt block of type ${block.type} is not supported: send text.`);
    }
  }
  const text = parts.join("\n").trim();
  if (text === "") throw new ArborError("invalid_input", "The prompt is empty: send at least one text block.");
  return text;
}

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "once", name: "Allow once", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];
const PLAN_OPTIONS: PermissionOption[] = [
  { optionId: "approve", name: "Approve the plan", kind: "allow_once" },
  { optionId: "reject", name: "Reject the plan", kind: "reject_once" },
];

function questionOptions(ask: Extract<Ask, { kind: "question" }>): PermissionOption[] {
  return [
    ...(ask.event.options ?? []).map(
      (o, i): PermissionOption => ({ optionId: `option:${i}`, name: o.label, kind: "allow_once" }),
    ),
    { optionId: "dismiss", name: "Dismiss the question", kind: "reject_once" },
  ];
}

/** The client's choice as Arbor's answer; a cancelled request (or an option Arbor did not offer) rejects. */
function answerOf(ask: Ask, response: RequestPermissionResponse): AskAnswer {
  const chosen = response.outcome.outcome === "selected" ? response.outcome.optionId : "reject";
  if (ask.kind === "question") {
    const index = /^option:(\d+)$/.exec(chosen)?.[1];
    const option = index === undefined ? undefined : ask.event.options?.[Number(index)];
    return {
      kind: "question",
      id: ask.id,
      answer: option ? { answers: [option.label] } : { dismissed: true, message: "Dismissed in the editor." },
    };
  }
  if (ask.kind === "plan") {
    return chosen === "approve"
      ? { kind: "plan", planId: ask.planId, approved: true }
      : { kind: "plan", planId: ask.planId, approved: false, reason: "Rejected in the editor." };
  }
  const reply: PermissionReply = chosen === "once" || chosen === "always" ? chosen : "reject";
  return { kind: "permission", id: ask.id, reply };
}

/** Asks the client with `session/request_permission` and hands its answer to the waiting run. */
async function askClient(deps: TurnDeps, session: AcpSession, ask: Ask, cancel: AbortSignal): Promise<void> {
  if (ask.kind === "question" && !acpAsksQuestion(ask.event)) return;
  const toolCall =
    ask.kind === "question"
      ? {
          toolCallId: ask.event.call_id ?? `question-${ask.id}`,
          title: ask.event.header ? `${ask.event.header}: ${ask.event.question}` : ask.event.question,
          kind: "think" as const,
          status: "pending" as const,
        }
      : ask.kind === "permission"
        ? {
            toolCallId: ask.event.call_id ?? `permission-${ask.id}`,
            title: `${ask.event.permission} ${ask.event.patterns.join(", ")}`.trim(),
            kind: toolKindOf(ask.event.tool ?? ask.event.permission),
            status: "pending" as const,
          }
        : {
            toolCallId: `plan-${ask.planId}`,
            title: `Approve plan: ${ask.event.title}`,
            kind: "think" as const,
            status: "pending" as const,
            content: [
              {
                type: "content" as const,
                content: { type: "text" as const, text: ask.event.steps.map((s, i) => `${i + 1}. ${s.title}`).join("\n") },
              },
            ],
          };
  const request: RequestPermissionRequest = {
    sessionId: session.id,
    toolCall,
    options: ask.kind === "question" ? questionOptions(ask) : ask.kind === "permission" ? PERMISSION_OPTIONS : PLAN_OPTIONS,
  };
  const response = await deps.client
    .request("session/request_permission", request, { cancellationSignal: cancel, stopWaitingOnCancel: true })
    .catch((): RequestPermissionResponse => ({ outcome: { outcome: "cancelled" } }));
  // A cancelled turn's run is being aborted: its ask goes with it.
  if (cancel.aborted) return;
  // Answered elsewhere meanwhile (the CLI, another client): the run has its answer already.
  await session.runs.answer(answerOf(ask, response)).catch(() => undefined);
}

/** How a run ended, as ACP's stop reason. */
function stopReasonOf(result: RunResult, cancelled: boolean): StopReason {
  if (cancelled || result.status === "aborted") return "cancelled";
  if (result.status === "error") {
    throw requestErrorFor(result.error?.code ?? "run_failed", result.error?.message ?? "The run failed.");
  }
  return result.stopReason === "max_turns" ? "max_turn_requests" : "end_turn";
}

/**
 * One `session/prompt`: starts the run (a new session is created by its first prompt, so a session
 * the client only opened leaves nothing behind), streams its events as `session/update`s, asks the
 * client for each permission and plan approval, and answers with why the run stopped. Cancelling
 * (`session/cancel`, or the request's own cancellation) aborts the run, keeping what it did.
 */
export async function runPromptTurn(
  deps: TurnDeps,
  session: AcpSession,
  prompt: readonly ContentBlock[],
  signal: AbortSignal,
): Promise<PromptResponse> {
  if (session.turn !== undefined) {
    throw new ArborError("session_busy", `Session ${session.id} is answering a prompt already: cancel it or wait for its end.`);
  }
  const message = promptText(prompt);
  const exists = (await deps.store.getSession(session.id)) !== undefined;
  const workspace = clientWorkspace(deps.client, session.id, deps.capabilities);
  const turn = {
    message,
    agent: session.mode,
    cwd: session.cwd,
    ...(exists ? { sessionId: session.id } : { newSessionId: session.id }),
    ...(session.fromEntryId === undefined ? {} : { fromEntryId: session.fromEntryId }),
    ...(workspace === undefined ? {} : { workspace }),
  };
  await session.runs.admit(turn, { steer: false });
  const { reader, handle } = await session.runs.start(turn);
  const cancel = new AbortController();
  session.turn = { handle, cancel };
  delete session.fromEntryId;
  const onAbort = () => cancelTurn(session);
  signal.addEventListener("abort", onAbort, { once: true });
  const wire = new AcpRunWire(session.cwd);
  const send = (update: SessionUpdate) => deps.client.notify("session/update", { sessionId: session.id, update });
  try {
    for (;;) {
      const step = await readStep(session.id, reader);
      for (const e of step.events) {
        const ask = askOf(e.event);
        // A sub-agent's ask waits on this run's client too; its other events are its own trace's.
        if (ask === undefined && e.event.session_id !== session.id) continue;
        for (const update of wire.event(e)) await send(update);
        if (ask !== undefined) {
          await askClient(deps, session, ask, cancel.signal);
          continue;
        }
        if (e.event.type === "tool_end" && e.event.tool === "goal" && !e.event.is_error) {
          const { goalTree } = await getTrace(deps.store, session.id);
          if (goalTree !== null) await send(goalTreePlan(goalTree));
        }
      }
      if (step.end) break;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.close();
    session.turn = undefined;
  }
  return { stopReason: stopReasonOf(await handle.result, cancel.signal.aborted) };
}

/** `session/cancel`: aborts the session's run; what it did is kept. Nothing to do when no prompt is going. */
export function cancelTurn(session: AcpSession): void {
  const turn = session.turn;
  if (turn === undefined || turn.cancel.signal.aborted) return;
  turn.cancel.abort();
  void session.runs.abort(session.id, new ArborError("aborted", "The ACP client cancelled the prompt.")).catch(() => false);
}

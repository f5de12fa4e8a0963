import { ArborError } from "@arbor/core";
import type { ServerContext } from "../../context.js";
import { ApiError } from "../../errors.js";
import { asPrincipal } from "../../http/principal.js";
import { defineRoute, type Route } from "../../http/route.js";
import { SessionParams } from "../../schemas.js";
import { type Ask, type AskAnswer, refOf } from "../shared/asks.js";
import { chatRouteResponses, ProtocolRuntime } from "../shared/runs.js";
import {
  ApprovalResponsePart,
  AssistantMetadata,
  type UiChatMessage,
  UiChatRequest,
  UiChunkDescription,
} from "./ui-chat-schemas.js";
import { type ArborUIChunk, answerOfApproval, planCallId, type UiApproval } from "./ui-chunks.js";
import type { ArborDataParts } from "./ui-data-parts.js";
import { uiStreamResponse } from "./ui-stream.js";

const UI_STREAM =
  "The AI SDK UI message stream (v1, header `x-vercel-ai-ui-message-stream: v1`): SSE `data:` chunks ending with `[DONE]`. " +
  "Text and reasoning come as `text-*`/`reasoning-*` blocks, tool calls as `tool-*` chunks of dynamic tools, Arbor's plan, " +
  "progress, model-call, compaction, goal, sub-agent and branch events as `data-*` parts. A permission ask or a plan waiting for approval is a `tool-approval-request`: the message then finishes " +
  "(`finishReason: tool-calls`) while the run waits, and the client's next request carrying the approval continues it. " +
  "`start` and `finish` carry `{ sessionId, lastEventId }` as message metadata.";

function promptOf(message: UiChatMessage): string {
  return message.parts
    .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("\n")
    .trim();
}

/** The approvals the client answered in an assistant message this server streamed. */
function approvalsOf(message: UiChatMessage): UiApproval[] {
  return message.parts.flatMap((part) => {
    const parsed = ApprovalResponsePart.safeParse(part);
    return parsed.success ? [parsed.data.approval] : [];
  });
}

/** The plan's call has no tool run to end it: its outcome is the answer itself. */
function planOutcome(answer: Extract<AskAnswer, { kind: "plan" }>): ArborUIChunk {
  return answer.approved
    ? { type: "tool-output-available", toolCallId: planCallId(answer.planId), output: "approved", dynamic: true }
    : { type: "tool-output-denied", toolCallId: planCallId(answer.planId) };
}

/** `POST /api/ui/chat` and its resume: a stock `useChat` over the runtime. */
export function uiChatRoutes(ctx: ServerContext): Route[] {
  const { store, watch } = ctx;
  const runs = new ProtocolRuntime(ctx);
  /**
   * Where a regenerated answer branches: the last user message on the session's active path, which
   * the run re-sends from its parent, so the old answer stays on a sibling branch.
   */
  const regenerateFrom = async (sessionId: string): Promise<ArborDataParts["branch"]> => {
    const meta = await store.getSession(sessionId);
    if (!meta)
      throw new ArborError("session_not_found", `Session ${sessionId} does not exist: there is no answer to regenerate.`);
    const path = await store.getActivePath(sessionId);
    const lastUser = path.findLast((entry) => entry.type === "message" && entry.message.role === "user");
    if (!lastUser) {
      throw new ApiError(
        "invalid_input",
        `Session ${sessionId} has no user message to answer again; send one with submit-message.`,
      );
    }
    return { reason: "regenerate", from_entry_id: lastUser.id, previous_leaf_entry_id: meta.leafEntryId };
  };
  // Asked of the store, not of this instance's runs: the run may be driven by another instance (queued
  // there, or taken over after its driver died), and its stream still stops at its asks.
  const waitsIn = (sessionId: string) => (ask: Ask) => runs.isWaitingAnywhere(refOf(ask), sessionId);

  const chat = defineRoute(
    {
      method: "POST",
      path: "/api/ui/chat",
      scope: "run",
      tag: "chat",
      summary: "Chat as an AI SDK useChat backend",
      description:
        "The endpoint `DefaultChatTransport` posts to. The chat id is the session id (a new id starts a session with it); the " +
        "last user message is the prompt. When the last message is the assistant message this server streamed and it holds " +
        "approval responses, they answer the run's waiting permission asks and the stream continues after `lastEventId`. " +
        "`regenerate-message` answers the last user message again on a new branch of the session (from that message's parent).",
      body: UiChatRequest,
      responses: chatRouteResponses(
        { description: UI_STREAM, schema: UiChunkDescription, contentType: "text/event-stream" },
        "Invalid body: bad chat id, no text in the last user message, or an answer to no ask.",
        "The session of an approval or a regenerate-message does not exist.",
      ),
    },
    async ({ body }, c) => {
      const sessionId = body.id;
      const by = asPrincipal(c);
      const last = body.messages[body.messages.length - 1] as UiChatMessage;
      if (last.role === "assistant") {
        const approvals = approvalsOf(last);
        const cursor = AssistantMetadata.safeParse(last.metadata);
        if (approvals.length === 0 || !cursor.success) {
          throw new ApiError(
            "invalid_input",
            "The last message is an assistant message without approval responses and its lastEventId metadata; send a user message to start a run.",
          );
        }
        await runs.mayAnswerIn(sessionId, by.principal);
        const answers = approvals.map(answerOfApproval);
        // The asks of this session still waiting, on any instance (the run may be driven elsewhere).
        const open: AskAnswer[] = [];
        for (const answer of answers) if (await runs.isWaitingAnywhere(refOf(answer), sessionId)) open.push(answer);
        if (open.length === 0) {
          throw new ApiError(
            "permission_not_found",
            `None of the approvals answers an ask session ${sessionId} is waiting for: they were answered already or the run ended. GET /api/permissions lists the waiting ones.`,
          );
        }
        // Read from the log before answering, so nothing the run does after the answer can be missed.
        const reader = await runs.reader(sessionId, { after: cursor.data.lastEventId });
        const opening: ArborUIChunk[] = [];
        for (const answer of open) {
          // Wherever the run waits: the store's record, or the instance whose run waits on a plan.
          const answered = await runs.answer(answer, by.principal).catch((err: unknown) => {
            reader.close();
            throw err;
          });
          if (answered && answer.kind === "plan") opening.push(planOutcome(answer));
        }
        return uiStreamResponse({
          sessionId,
          reader,
          waitsForAnswer: waitsIn(sessionId),
          after: cursor.data.lastEventId,
          opening,
          watch,
        });
      }
      if (last.role !== "user") throw new ApiError("invalid_input", "The last message must be the user's message to answer.");
      const prompt = promptOf(last);
      if (prompt === "") throw new ApiError("invalid_input", "The last user message has no text part to send as the prompt.");
      // useChat names the chat before the first message: that name becomes the new session's id.
      const exists = (await store.getSession(sessionId)) !== undefined;
      const named = exists ? { sessionId } : { newSessionId: sessionId };
      const branch = body.trigger === "regenerate-message" ? await regenerateFrom(sessionId) : undefined;
      const turn = { message: prompt, ...named, ...by, ...(branch ? { fromEntryId: branch.from_entry_id } : {}) };
      // As /api/chat: a session another run drives is refused (409) before anything streams; in a
      // cluster the turn is recorded and queued, and the stream follows its run from the log wherever
      // it is driven, also after another instance took it over.
      const begun = await runs.begin(turn, { steer: false });
      if (!("started" in begun)) throw new ArborError("session_busy", `Session ${sessionId} has a run in progress.`);
      return uiStreamResponse({
        sessionId,
        reader: begun.started.reader,
        waitsForAnswer: waitsIn(sessionId),
        ...(branch ? { opening: [{ type: "data-branch", id: `branch-${branch.from_entry_id}`, data: branch }] } : {}),
        watch,
      });
    },
  );

  const resume = defineRoute(
    {
      method: "GET",
      path: "/api/ui/chat/:id/stream",
      scope: "read",
      tag: "chat",
      summary: "Resume a useChat stream",
      description:
        "What `useChat`'s `resumeStream` asks for after a reload: the session's run in progress from its first event, read " +
        "from the session's event log (so any server over the store answers, also after a restart), then live, also across a " +
        "takeover (a run whose driver died goes on in the same log). 204 when no run is in progress " +
        "or no session has the id yet (a new chat asks before its first message).",
      params: SessionParams,
      responses: {
        200: { description: UI_STREAM, schema: UiChunkDescription, contentType: "text/event-stream" },
        204: { description: "No run in progress (or no such session yet): nothing to resume." },
        400: "Invalid chat id.",
      },
    },
    async ({ params }) => {
      const sessionId = params.id;
      // useChat asks before a new chat's first message too, with the id it just made up: nothing to resume.
      const meta = await store.getSession(sessionId);
      if (!meta) return new Response(null, { status: 204 });
      // A run whose driver died reads as interrupted until another instance takes it over: the stream
      // waits for the new driver's events, which follow the cut-off run's in the same log.
      if (meta.status !== "interrupted" && !(await runs.isBusy(sessionId))) return new Response(null, { status: 204 });
      const reader = await runs.reader(sessionId, { currentRun: true });
      return uiStreamResponse({ sessionId, reader, waitsForAnswer: waitsIn(sessionId), watch });
    },
  );

  return [chat, resume];
}

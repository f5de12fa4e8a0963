import { z } from "zod";
import { SessionId } from "../../id-schemas.js";

/**
 * One message of a `useChat` client, as its transport sends it. Only what the server reads is
 * checked; other part fields (provider metadata, states this server does not act on) pass through.
 */
const UiPart = z.looseObject({ type: z.string().min(1) });
const UiMessage = z.looseObject({
  id: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(UiPart),
  metadata: z.unknown().optional(),
});

/** The body `DefaultChatTransport` posts: the chat id (Arbor's session id), the messages, and why it sends them. */
export const UiChatRequest = z.looseObject({
  id: SessionId,
  messages: z.array(UiMessage).min(1, "messages must hold at least the message to answer"),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  messageId: z.string().optional(),
});
export type UiChatRequest = z.output<typeof UiChatRequest>;
export type UiChatMessage = z.output<typeof UiMessage>;

/** A tool part answered by the user: the approval this server's ask is waiting for. */
export const ApprovalResponsePart = z.looseObject({
  state: z.literal("approval-responded"),
  approval: z.looseObject({ id: z.string(), approved: z.boolean(), reason: z.string().optional() }),
});

/** The metadata this server put on the assistant message it streamed. */
export const AssistantMetadata = z.looseObject({ lastEventId: z.number().int().nonnegative() });

export const UiChunkDescription = z
  .looseObject({ type: z.string() })
  .meta({ description: "One UI message stream chunk (`start`, `text-delta`, `tool-input-available`, `data-*`, `finish`, …)." });

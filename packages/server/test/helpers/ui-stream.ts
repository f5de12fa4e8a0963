import { parseJsonEventStream, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";
import { expect } from "vitest";

/** A UI stream response read as a stock client does: SSE parsed into chunks, folded into the assistant message. */
export async function readUi(res: Response, message?: UIMessage): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  expect(res.status).toBe(200);
  expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  if (!res.body) throw new Error("no body");
  const chunks: UIMessageChunk[] = [];
  const stream = parseJsonEventStream({ stream: res.body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(part, controller) {
        if (!part.success) throw part.error;
        // A copy: the reader keeps a data chunk as the message's part and updates it in place.
        chunks.push(structuredClone(part.value));
        controller.enqueue(part.value);
      },
    }),
  );
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, ...(message ? { message } : {}), terminateOnError: true }))
    last = snapshot;
  if (!last) throw new Error("no message");
  return { chunks, message: last };
}

/** A user message as useChat sends it. */
export const user = (text: string) => ({ id: `u-${text.length}`, role: "user", parts: [{ type: "text", text }] });

/** The assistant message as useChat's addToolApprovalResponse leaves it: every approval it asks, approved. */
export function approveAll(message: UIMessage): UIMessage {
  return {
    ...structuredClone(message),
    parts: message.parts.map((p) =>
      p.type === "dynamic-tool" && p.state === "approval-requested"
        ? { ...p, state: "approval-responded", approval: { id: p.approval.id, approved: true } }
        : p,
    ),
  };
}

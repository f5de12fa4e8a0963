import type { Entry } from "@arbor/core";
import { type Ask, type AskRef, askIdOf } from "../shared/asks.js";
import { unreachable } from "../shared/unreachable.js";

/** An ask's id as an `mcp_approval_request` carries it, and the ask an `approval_request_id` names. */
export function approvalId(ask: Ask | AskRef): string {
  return `apr_${ask.kind}_${askIdOf(ask)}`;
}

export function askOfApprovalId(id: string): AskRef | undefined {
  const permission = /^apr_permission_(.+)$/.exec(id)?.[1];
  if (permission !== undefined) return { kind: "permission", id: permission };
  const plan = /^apr_plan_(.+)$/.exec(id)?.[1];
  return plan === undefined ? undefined : { kind: "plan", planId: plan };
}

type Item = { type: string; id: string } & Record<string, unknown>;

const textOfResult = (output: { type: string; value: unknown }): string =>
  typeof output.value === "string" ? output.value : JSON.stringify(output.value);

/**
 * A stored turn's output as the Responses API shows it: each assistant message's reasoning and text,
 * its tool calls (a client's function as `function_call`, Arbor's own as `mcp_call` with the result).
 */
export function outputOfTurn(turn: readonly Entry[]): Item[] {
  const results = new Map<string, { output: string; isError: boolean; client: boolean }>();
  for (const entry of turn) {
    if (entry.type !== "message" || entry.message.role !== "tool") continue;
    for (const part of entry.message.content) {
      // The client's functions mark their results (see ClientCalls): the client ran them, not Arbor.
      const metadata = (part as { metadata?: { client_tool?: unknown; awaiting?: unknown } }).metadata;
      results.set(part.toolCallId, {
        output: textOfResult(part.output),
        isError: part.output.type.startsWith("error"),
        client: metadata?.client_tool === true || metadata?.awaiting !== undefined,
      });
    }
  }
  const items: Item[] = [];
  for (const entry of turn) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    entry.message.content.forEach((part, n) => {
      const id = `${entry.id}_${n}`;
      switch (part.type) {
        case "text":
          if (part.text !== "") {
            items.push({
              type: "message",
              id: `msg_${id}`,
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: part.text, annotations: [] }],
            });
          }
          return;
        case "reasoning":
          items.push({ type: "reasoning", id: `rs_${id}`, summary: [], content: [{ type: "reasoning_text", text: part.text }] });
          return;
        case "tool-call": {
          const args = JSON.stringify(part.input ?? {});
          const result = results.get(part.toolCallId);
          if (result === undefined || result.client) {
            items.push({
              type: "function_call",
              id: `fc_${part.toolCallId}`,
              call_id: part.toolCallId,
              name: part.toolName,
              arguments: args,
              status: "completed",
            });
            return;
          }
          items.push({
            type: "mcp_call",
            id: `mcp_${part.toolCallId}`,
            server_label: "arbor",
            name: part.toolName,
            arguments: args,
            status: result.isError ? "failed" : "completed",
            output: result.isError ? null : result.output,
            error: result.isError ? result.output : null,
          });
          return;
        }
        case "file":
          return;
        default:
          unreachable("part", part);
      }
    });
  }
  return items;
}

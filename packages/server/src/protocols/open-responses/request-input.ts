import type { z } from "zod";
import type { AskRef } from "../shared/asks.js";
import { ParamError, parseParam } from "./openai-errors.js";
import { askOfApprovalId } from "./output-items.js";
import { ApprovalResponseItem, type CreateResponseBody, FunctionCallOutputItem, FunctionTool, MessageItem } from "./schemas.js";

/** What a request's `input` asks for: a new user message, or answers to what the previous response paused on. */
export interface RequestInput {
  prompt?: string;
  /** `system` and `developer` messages: extra instructions for this run. */
  system: string[];
  outputs: Array<{ callId: string; output: string }>;
  approvals: Array<{ ask: AskRef; approve: boolean; reason?: string }>;
}

const textOf = (content: z.output<typeof MessageItem>["content"]): string =>
  typeof content === "string" ? content : content.map((p) => p.text).join("");

/**
 * The request's input items sorted by what they do. Arbor keeps the conversation itself (a
 * response's session), so earlier turns are not sent back: an assistant message, a function call or
 * a reasoning item in the input is refused with a pointer to `previous_response_id`.
 */
export function readInput(input: CreateResponseBody["input"]): RequestInput {
  const read: RequestInput = { system: [], outputs: [], approvals: [] };
  if (input === undefined) return read;
  if (typeof input === "string") return { ...read, prompt: input };
  const prompts: string[] = [];
  input.forEach((raw, i) => {
    const at = `input[${i}]`;
    switch (raw.type) {
      case undefined:
      case "message": {
        const item = parseParam(MessageItem, raw, at);
        if (item.role === "assistant") {
          throw new ParamError(
            "invalid_input",
            `${at} is an assistant message: Arbor keeps the conversation itself, so send only the new message with previous_response_id naming the response to continue.`,
            at,
          );
        }
        (item.role === "user" ? prompts : read.system).push(textOf(item.content));
        return;
      }
      case "function_call_output": {
        const item = parseParam(FunctionCallOutputItem, raw, at);
        read.outputs.push({ callId: item.call_id, output: typeof item.output === "string" ? item.output : textOf(item.output) });
        return;
      }
      case "mcp_approval_response": {
        const item = parseParam(ApprovalResponseItem, raw, at);
        const ask = askOfApprovalId(item.approval_request_id);
        if (!ask) {
          throw new ParamError(
            "invalid_input",
            `${at}.approval_request_id is not an approval request this server made.`,
            `${at}.approval_request_id`,
          );
        }
        read.approvals.push({ ask, approve: item.approve, ...(item.reason ? { reason: item.reason } : {}) });
        return;
      }
      default:
        throw new ParamError(
          "invalid_input",
          `${at} has type ${JSON.stringify(raw.type)}; Arbor takes user, system and developer messages, function_call_output and mcp_approval_response items (earlier output is kept by the server: continue it with previous_response_id).`,
          `${at}.type`,
        );
    }
  });
  if (prompts.length > 0) read.prompt = prompts.join("\n\n");
  return read;
}

/** The client's function tools; Arbor's own tools are always offered, so other tool types are refused. */
export function readTools(tools: CreateResponseBody["tools"]): Array<z.output<typeof FunctionTool>> {
  return (tools ?? []).map((raw, i) => {
    if (raw.type !== "function") {
      throw new ParamError(
        "invalid_input",
        `tools[${i}] has type ${JSON.stringify(raw.type)}; only function tools are taken (Arbor's own tools are always offered).`,
        `tools[${i}].type`,
      );
    }
    return parseParam(FunctionTool, raw, `tools[${i}]`);
  });
}

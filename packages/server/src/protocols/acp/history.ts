import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Entry, ToolResultOutput } from "@arbor/core";
import { unreachable } from "../shared/unreachable.js";
import { toolCallEnded, toolCallStarted } from "./tool-calls.js";

/** A tool result as the text the model read. */
function outputText(output: ToolResultOutput): string {
  return typeof output.value === "string" ? output.value : JSON.stringify(output.value);
}

/**
 * A session's active path (root to leaf) as the updates a client replays on `session/load`: the
 * user's messages, the agent's text and thoughts, and each tool call with its result. Messages
 * Arbor wrote itself (reminders, compaction continuations) and entries that are not messages are
 * not conversation, so they are left out.
 */
export function historyUpdates(path: readonly Entry[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const inputs = new Map<string, unknown>();
  for (const entry of path) {
    if (entry.type !== "message" || entry.message.synthetic === true) continue;
    const message = entry.message;
    switch (message.role) {
      case "user":
        for (const part of message.content) {
          if (part.type === "text")
            updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: part.text } });
        }
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "text" && part.text !== "") {
            updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
          } else if (part.type === "reasoning" && part.text !== "") {
            updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } });
          } else if (part.type === "tool-call") {
            inputs.set(part.toolCallId, part.input);
            updates.push({ sessionUpdate: "tool_call", ...toolCallStarted(part.toolCallId, part.toolName, part.input, cwd) });
          }
        }
        break;
      case "tool":
        for (const part of message.content) {
          const failed = part.output.type === "error-text" || part.output.type === "error-json";
          const input = inputs.get(part.toolCallId);
          updates.push({
            sessionUpdate: "tool_call_update",
            ...toolCallEnded(part.toolCallId, part.toolName, input, outputText(part.output), failed, cwd),
          });
        }
        break;
      case "system":
        break;
      default:
        return unreachable("message", message);
    }
  }
  return updates;
}

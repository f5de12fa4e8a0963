import { ArborError } from "../errors.js";
import type { PreparedReplay } from "../loop/extension.js";
import type { AssistantMessage } from "../model/message.js";
import type { ToolCallPart } from "../model/parts.js";
import { describeIssues } from "../model/validate.js";
import type { Store } from "../store/store.js";
import { GOAL_TOOL_NAME, GoalToolInputSchema } from "./goal-tool.js";

/** `runtime.replay`: which past `goal` call to change, and to what. */
export interface ReplaySpec {
  /** The assistant message that made the call. */
  messageId: string;
  /** The call to edit; omitted, the message's one `goal` call (a message with several must name one). */
  toolCallId?: string;
  /** The call's new arguments: a whole `goal` input, validated like the model's. */
  arguments: unknown;
}

/** The call the spec names, or the message's only `goal` call when it names none. */
function findCall(message: AssistantMessage, spec: ReplaySpec): ToolCallPart {
  const calls = message.content.filter((p): p is ToolCallPart => p.type === "tool-call");
  if (spec.toolCallId !== undefined) {
    const named = calls.find((p) => p.toolCallId === spec.toolCallId);
    if (named === undefined) {
      throw new ArborError("entry_not_found", `Message ${spec.messageId} has no tool call ${spec.toolCallId}.`);
    }
    return named;
  }
  const goals = calls.filter((p) => p.toolName === GOAL_TOOL_NAME);
  if (goals.length === 1) return goals[0]!;
  if (goals.length === 0) {
    throw new ArborError("entry_not_found", `Message ${spec.messageId} makes no goal call: name an assistant message that does.`);
  }
  throw new ArborError(
    "invalid_input",
    `Message ${spec.messageId} makes ${goals.length} goal calls (${goals.map((g) => g.toolCallId).join(", ")}): name the one to edit.`,
  );
}

/**
 * Checks a replay against the stored session and builds the edited message; writes nothing, so a
 * bad request changes nothing. Only `goal` calls can be edited: they only change the plan, and
 * replaying any other tool would repeat its side effects.
 */
export async function prepareReplay(store: Store, sessionId: string, spec: ReplaySpec): Promise<PreparedReplay> {
  const entry = await store.getEntry(sessionId, spec.messageId);
  if (entry?.type !== "message" || entry.message.role !== "assistant") {
    throw new ArborError("entry_not_found", `Session ${sessionId} has no assistant message ${spec.messageId}.`);
  }
  const original = entry.message;
  const part = findCall(original, spec);
  if (part.toolName !== GOAL_TOOL_NAME) {
    throw new ArborError(
      "invalid_input",
      `Call ${part.toolCallId} is a ${part.toolName} call; only goal calls can be edited and replayed.`,
    );
  }
  const parsed = GoalToolInputSchema.safeParse(spec.arguments);
  if (!parsed.success) {
    throw new ArborError("invalid_input", `The new goal arguments are not valid: ${describeIssues(parsed.error)}.`);
  }
  const input = parsed.data;
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ ...part, input }],
    description: `tool call: ${GOAL_TOOL_NAME} (edited)`,
    ...(original.model !== undefined ? { model: original.model } : {}),
    finishReason: "tool-calls",
    replayOf: { messageId: spec.messageId, toolCallId: part.toolCallId },
  };
  return {
    branchFrom: entry.parentId,
    message,
    call: { toolCallId: part.toolCallId, toolName: GOAL_TOOL_NAME, inputText: JSON.stringify(input) },
  };
}

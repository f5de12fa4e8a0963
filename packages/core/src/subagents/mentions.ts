import { randomUUID } from "node:crypto";
import { appendMessage } from "../loop/journal.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import { asStep } from "../loop/steps.js";
import { runToolCalls } from "../loop/tool-runner.js";
import type { AssistantMessage } from "../model/message.js";

/** `@explore <task>` and `@general <task>` at the start of a prompt name the sub-agent to start. */
const MENTION = /^@(explore|general)\s+([\s\S]*\S)\s*$/;

/** What a mention starts: the tool the model would have called, with the arguments it would have given. */
export function mentionCall(prompt: string): { toolName: "explore" | "delegate"; input: unknown } | undefined {
  const match = MENTION.exec(prompt.trim());
  if (!match) return undefined;
  const task = match[2]!.trim();
  return match[1] === "explore"
    ? { toolName: "explore", input: { branches: [task] } }
    : { toolName: "delegate", input: { task } };
}

/** The text of the run's latest message when it is the user's and nothing answered it yet. */
function pendingPrompt(ctx: RunContext): string | undefined {
  const last = ctx.state.items[ctx.state.length - 1]?.message;
  if (last?.role !== "user") return undefined;
  return last.content.map((p) => (p.type === "text" && p.synthetic !== true ? p.text : "")).join("");
}

/**
 * A prompt that mentions a sub-agent starts it at once, as the run's first step: the call is
 * written as the agent's own (so the history reads as if it had called the tool), runs through the
 * same permission checks and records, and the model then carries on from the sub-agent's report.
 * An agent without that tool gets the prompt as plain text.
 */
export function mentionsExtension(): RunExtension {
  return {
    name: "mentions",
    async around(ctx, loop) {
      const prompt = pendingPrompt(ctx);
      const call = prompt === undefined ? undefined : mentionCall(prompt);
      if (call && ctx.toolNames.includes(call.toolName)) {
        const toolCallId = `mention_${randomUUID()}`;
        const message: AssistantMessage = {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId, toolName: call.toolName, input: call.input }],
          description: `tool call: ${call.toolName}`,
          model: ctx.model.ref,
          agent: ctx.agent.name,
          finishReason: "tool-calls",
          synthetic: true,
        };
        await asStep(ctx, async () => {
          const entry = await appendMessage(ctx, message);
          await runToolCalls(ctx, entry.id, [{ toolCallId, toolName: call.toolName, inputText: JSON.stringify(call.input) }], "");
        });
        if (ctx.signal.aborted) return { status: "aborted" };
      }
      return loop();
    },
  };
}

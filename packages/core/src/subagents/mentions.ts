import { randomUUID } from "node:crypto";
import { DEFAULT_DELEGATE_AGENT, delegateTargets, type SubAgentInfo } from "../agents/delegate-targets.js";
import { appendMessage } from "../loop/journal.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import { asStep } from "../loop/steps.js";
import { runToolCalls } from "../loop/tool-runner.js";
import type { AssistantMessage } from "../model/message.js";

/** `@<name> <task>` at the start of a prompt: the name of a sub-agent, then the task for it. */
const MENTION = /^@([A-Za-z0-9][\w.-]*)\s+([\s\S]*\S)\s*$/;

/**
 * What a mention starts: the tool the model would have called, with the arguments it would have
 * given. `@explore` starts one explore branch; any other name a `delegate` call may name (a
 * configured sub-agent, `general` by default) delegates the task to that agent. Undefined for a
 * prompt that names no such agent (an e-mail address, a package scope): it goes as plain text.
 */
export function mentionCall(
  prompt: string,
  agents: Iterable<SubAgentInfo> = [],
): { toolName: "explore" | "delegate"; input: unknown } | undefined {
  const match = MENTION.exec(prompt.trim());
  if (!match) return undefined;
  const name = match[1]!;
  const task = match[2]!.trim();
  if (name === "explore") return { toolName: "explore", input: { branches: [task] } };
  if (name === DEFAULT_DELEGATE_AGENT) return { toolName: "delegate", input: { task } };
  if (!delegateTargets(agents).some((a) => a.name === name)) return undefined;
  return { toolName: "delegate", input: { task, agent: name } };
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
export function mentionsExtension(agents: Readonly<Record<string, SubAgentInfo>> = {}): RunExtension {
  return {
    name: "mentions",
    async around(ctx, loop) {
      const prompt = pendingPrompt(ctx);
      const call = prompt === undefined ? undefined : mentionCall(prompt, Object.values(agents));
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

import { type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import { ArborError } from "../errors.js";
import { modelInfo } from "../llm/catalog.js";
import { PROVIDERS } from "../llm/model-ref.js";
import type { ModelResolver, ResolvedModel } from "../llm/resolved-model.js";
import { type Entry, THINKING_LEVEL_HINT, ThinkingLevelSchema } from "../model/entry.js";
import type { UserMessage } from "../model/message.js";
import { buildSwitchReminder, planModeReminder } from "./reminders.js";
import type { AgentDefinition, RunInput } from "./types.js";

/**
 * What a run makes of its input before it writes anything: the user's content checked, the
 * reminders that ride on it, and the trace's mission. Pure.
 */

/** Over this a prompt cannot be one session entry; far over any model's context long before. */
export const MAX_PROMPT_BYTES = 4 * 1024 * 1024;

/** A rough 4 characters a token, enough to refuse a prompt that cannot fit the model at all. */
export const CHARS_PER_TOKEN = 4;

export function userContent(prompt: RunInput["prompt"]): UserMessage["content"] {
  if (typeof prompt === "string") return [{ type: "text", text: prompt }];
  if (!Array.isArray(prompt)) throw new ArborError("invalid_input", "The prompt must be text or a list of text and file parts.");
  return prompt;
}

export function promptText(content: UserMessage["content"]): string {
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

export function checkPrompt(content: UserMessage["content"]): void {
  const text = promptText(content);
  if (text.trim() === "" && !content.some((p) => p.type === "file")) {
    throw new ArborError("invalid_input", "The prompt is empty: say what the agent should do.");
  }
  const bytes = Buffer.byteLength(JSON.stringify(content));
  if (bytes > MAX_PROMPT_BYTES) {
    throw new ArborError(
      "invalid_input",
      `The prompt is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_PROMPT_BYTES / 1024 / 1024} MB. Put large material in a file in the workspace and ask the agent to read it.`,
    );
  }
}

/** The agent that wrote the last assistant message on the path, to notice a plan → build switch. */
function lastAgent(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "message" && entry.message.role === "assistant") {
      const agent = (entry.message as { agent?: unknown }).agent;
      return typeof agent === "string" ? agent : undefined;
    }
  }
  return undefined;
}

/** Reminders that ride on the user's message, marked synthetic so they are never shown as the user's words. */
export function remindersFor(agent: AgentDefinition, path: readonly Entry[]): UserMessage["content"] {
  if (agent.name === "plan") return [{ type: "text", text: planModeReminder(), synthetic: true }];
  if (lastAgent(path) === "plan") return [{ type: "text", text: buildSwitchReminder(), synthetic: true }];
  return [];
}

/** The task of a trace: its first user message, the mission of the plan it makes. */
export function missionOf(path: readonly Entry[], fallback: string): string {
  for (const entry of path) {
    if (entry.type === "message" && entry.message.role === "user" && entry.message.synthetic !== true) {
      const text = promptText(entry.message.content).trim();
      if (text) return text;
    }
  }
  return fallback.trim();
}

/** A thinking level from outside (API, CLI), refused with the levels there are. */
export function checkThinking(level: unknown): void {
  if (!ThinkingLevelSchema.safeParse(level).success) {
    throw new ArborError("invalid_input", `Unknown thinking level ${JSON.stringify(level)}: use one of ${THINKING_LEVEL_HINT}.`);
  }
}

/**
 * The model a continued session last used, so continuing it keeps its model unless the run names
 * another: its latest `model_change`, or the model of its latest answer. Only a `provider/model` of
 * a provider Arbor speaks counts; a model instance an embedder passed in has no ref to resolve again.
 */
export function sessionModel(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    const ref =
      entry.type === "model_change"
        ? entry.model
        : entry.type === "message" && entry.message.role === "assistant"
          ? entry.message.model
          : undefined;
    if (ref === undefined) continue;
    return (PROVIDERS as readonly string[]).includes(ref.slice(0, ref.indexOf("/"))) ? ref : undefined;
  }
  return undefined;
}

export function resolveModel(
  deps: {
    defaultModel: string | LanguageModelV4 | undefined;
    config: Pick<Config, "model" | "models">;
    models: () => ModelResolver;
  },
  agent: AgentDefinition,
  input: Pick<RunInput, "model">,
  path: readonly Entry[] = [],
): ResolvedModel {
  const chosen = input.model ?? sessionModel(path) ?? agent.model ?? deps.defaultModel ?? deps.config.model;
  if (chosen === undefined) {
    throw new ArborError(
      "invalid_model",
      'No model is configured: pass --model <provider>/<model>, set ARBOR_MODEL, or set "model" in arbor.json.',
    );
  }
  if (typeof chosen === "string") return deps.models().resolve(chosen);
  const ref = `${chosen.provider}/${chosen.modelId}`;
  return { ref, model: chosen, info: modelInfo(ref, deps.config.models) };
}

/**
 * The agent a run names (build by default). A session's own run may name only an agent offered to
 * users (not hidden, mode primary or all): `explore`, `compaction` and `subagent`-mode agents run
 * only as the sub-traces another agent starts (`subTrace`), with the tools and prompt made for that.
 */
export function resolveAgent(
  deps: { agents: Readonly<Record<string, AgentDefinition>> },
  name: string | undefined,
  as: { subTrace: boolean } = { subTrace: false },
): AgentDefinition {
  const agentName = name ?? "build";
  const agent = deps.agents[agentName];
  const runnable = Object.values(deps.agents)
    .filter((a) => !a.hidden && a.mode !== "subagent")
    .map((a) => a.name);
  if (!agent) {
    throw new ArborError("invalid_input", `Unknown agent "${agentName}". Agents you can run: ${runnable.join(", ")}.`);
  }
  if (!as.subTrace && !runnable.includes(agentName)) {
    throw new ArborError(
      "invalid_input",
      `Agent "${agentName}" runs only when another agent starts it (${agent.hidden ? "hidden" : `mode ${agent.mode}`}). Agents you can run: ${runnable.join(", ")}.`,
    );
  }
  return agent;
}

export async function resolveCwd(deps: { cwd: string }, input: RunInput): Promise<string> {
  const cwd = resolve(input.cwd ?? deps.cwd);
  // One stat of a local folder, made at once: a run's (and each sub-trace's) hop to the thread pool and back
  // cost more than the stat, and on a busy machine the run then waits for a core to come back to it.
  let info: Stats | undefined;
  try {
    info = statSync(cwd, { throwIfNoEntry: false });
  } catch {
    info = undefined; // not reachable (a file on the way, no permission): reported as not a directory below
  }
  if (!info?.isDirectory()) throw new ArborError("invalid_input", `The workspace ${cwd} is not a directory.`);
  return cwd;
}

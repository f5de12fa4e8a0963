import type { AgentDefinition } from "../agents/definition.js";
import type { Config } from "../config/schema.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import { freshPromptFiles, type PromptFiles } from "./prompt-files.js";
import { buildSystemPrompt } from "./system-prompt.js";

export interface SystemPromptSourceInput {
  agent: AgentDefinition;
  model: ResolvedModel;
  cwd: string;
  system?: string;
  signal: AbortSignal;
  config: Config;
  arborHome: string;
  date: Date;
  /** Where the prompt's files are read from: shared by the branches of one sub-agent batch, else read for this run. */
  files?: PromptFiles | undefined;
}

/** Reads the workspace's prompt files (once per run, or once per sub-agent batch) and assembles the system prompt from them. */
export async function systemPromptFor(input: SystemPromptSourceInput): Promise<string> {
  const memory = input.config.memory;
  const context = await (input.files ?? freshPromptFiles).load({
    cwd: input.cwd,
    arborHome: input.arborHome,
    signal: input.signal,
    memory: { date: input.date, days: memory.dailyLogDays, maxTokens: memory.maxPromptTokens },
  });
  return buildSystemPrompt({
    ...(input.agent.prompt ? { agentPrompt: input.agent.prompt } : {}),
    environment: {
      cwd: input.cwd,
      isGitRepo: context.isGitRepo,
      platform: process.platform,
      date: input.date,
      model: input.model.ref,
    },
    instructions: context.instructions,
    skills: context.skills,
    ...(input.system ? { system: input.system } : {}),
    maxChars: input.config.maxPromptChars,
  });
}

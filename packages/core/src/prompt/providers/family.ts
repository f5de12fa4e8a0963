/** The model families whose tool-calling habits the default prompt speaks to, each in a file of its own. */
export type PromptFamily = "anthropic" | "openai" | "gemini" | "open";

export interface ProviderPrompt {
  family: PromptFamily;
  /** Added after the default Arbor prompt when an agent has no prompt of its own. */
  text: string;
}

/**
 * The family of `provider/model`. The model id is read first, since a gateway (Bedrock, OpenRouter,
 * an OpenAI-compatible server) serves other makers' models: `bedrock/anthropic.claude-…` is Claude;
 * `gpt-oss` is an open model wherever it runs. Then the provider; anything else is an open model.
 */
export function promptFamily(model: string): PromptFamily {
  const slash = model.indexOf("/");
  const provider = slash < 0 ? "" : model.slice(0, slash).toLowerCase();
  const id = (slash < 0 ? model : model.slice(slash + 1)).toLowerCase();
  if (/claude/.test(id)) return "anthropic";
  if (/gemini/.test(id)) return "gemini";
  if (/gpt-oss/.test(id)) return "open";
  if (/(^|[/.])(gpt|o\d|codex|chatgpt)/.test(id)) return "openai";
  if (provider === "anthropic") return "anthropic";
  if (provider === "openai" || provider === "azure") return "openai";
  if (provider === "google") return "gemini";
  return "open";
}

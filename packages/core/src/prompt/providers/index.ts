import { ANTHROPIC_PROMPT } from "./anthropic.js";
import { type PromptFamily, type ProviderPrompt, promptFamily } from "./family.js";
import { GEMINI_PROMPT } from "./gemini.js";
import { OPEN_MODELS_PROMPT } from "./open-models.js";
import { OPENAI_PROMPT } from "./openai.js";

export { type PromptFamily, type ProviderPrompt, promptFamily } from "./family.js";

export const PROVIDER_PROMPTS: Readonly<Record<PromptFamily, ProviderPrompt>> = {
  anthropic: ANTHROPIC_PROMPT,
  openai: OPENAI_PROMPT,
  gemini: GEMINI_PROMPT,
  open: OPEN_MODELS_PROMPT,
};

/** The prompt of the model's family (see `promptFamily`). */
export function providerPrompt(model: string): ProviderPrompt {
  return PROVIDER_PROMPTS[promptFamily(model)];
}

import type { LanguageModelV4Message, LanguageModelV4Prompt, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { isProviderName } from "./model-ref.js";
import { definitionForSdkProvider, providerDefinition } from "./providers.js";

/**
 * The mark placing a cache breakpoint for a model, from its provider's definition: Anthropic (directly
 * or through Bedrock) caches a prompt only up to breakpoints the request marks; OpenAI, Gemini and the
 * rest cache a repeated prefix on their own, so they get no marks and the prompt is left exactly as it
 * was (a stable prefix is what their caches need). The provider is found by the ref's `provider/` part,
 * else by the SDK model's provider string (a model given as an instance).
 */
export function cacheMarkFor(ref: string, provider: string): SharedV4ProviderOptions | undefined {
  const slash = ref.indexOf("/");
  const name = ref.slice(0, Math.max(slash, 0));
  const model = ref.slice(slash + 1);
  const byRef = isProviderName(name) ? providerDefinition(name) : undefined;
  // The SDK's provider string is looked up only when the ref's provider gives no mark.
  return byRef?.cacheMark?.(model) ?? definitionForSdkProvider(provider)?.cacheMark?.(model);
}

/**
 * Marks the system prompt (which the tools precede in the cached prefix) and the last two messages:
 * the previous step ended at the second-to-last mark, so this step reads everything before it from
 * the cache, and the last mark writes the cache the next step reads. Three marks, under Anthropic's
 * limit of four. Marked messages are copies: the prompt kept between steps is never changed, so a
 * mark never lingers on a message once it is no longer among the last two.
 */
export function withCacheBreakpoints(
  prompt: LanguageModelV4Prompt,
  mark: SharedV4ProviderOptions | undefined,
): LanguageModelV4Prompt {
  if (mark === undefined || prompt.length === 0) return prompt;
  const marked = [...prompt];
  const targets = new Set<number>();
  const system = marked.findIndex((m) => m.role === "system");
  if (system >= 0) targets.add(system);
  for (let i = marked.length - 1, n = 0; i >= 0 && n < 2; i--) {
    if (marked[i]!.role === "system") continue;
    targets.add(i);
    n++;
  }
  for (const i of targets) marked[i] = withMark(marked[i]!, mark);
  return marked;
}

function withMark(message: LanguageModelV4Message, mark: SharedV4ProviderOptions): LanguageModelV4Message {
  const merged: SharedV4ProviderOptions = { ...message.providerOptions };
  for (const [provider, options] of Object.entries(mark)) merged[provider] = { ...merged[provider], ...options };
  return { ...message, providerOptions: merged } as LanguageModelV4Message;
}

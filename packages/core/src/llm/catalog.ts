import { z } from "zod";

/** Prices in US dollars per million tokens. */
export const ModelCostSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

export const ModelInfoSchema = z.object({
  limit: z.object({
    context: z.number().int().positive(),
    output: z.number().int().positive(),
    /** Some providers cap the prompt below `context - output`. */
    input: z.number().int().positive().optional(),
  }),
  cost: ModelCostSchema.optional(),
});

export type ModelCost = z.infer<typeof ModelCostSchema>;
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

const m = (
  context: number,
  output: number,
  input: number,
  outputCost: number,
  cacheRead?: number,
  cacheWrite?: number,
): ModelInfo => ({
  limit: { context, output },
  cost: {
    input,
    output: outputCost,
    ...(cacheRead === undefined ? {} : { cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
  },
});

/**
 * Limits and list prices of common models as published by their providers in 2025. Prices move:
 * `models` in arbor.json overrides any entry, and models not listed here get DEFAULT_MODEL_INFO.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelInfo>> = {
  "openai/gpt-4o": m(128_000, 16_384, 2.5, 10, 1.25),
  "openai/gpt-4o-mini": m(128_000, 16_384, 0.15, 0.6, 0.075),
  "openai/gpt-4.1": m(1_047_576, 32_768, 2, 8, 0.5),
  "openai/gpt-4.1-mini": m(1_047_576, 32_768, 0.4, 1.6, 0.1),
  "openai/gpt-4.1-nano": m(1_047_576, 32_768, 0.1, 0.4, 0.025),
  "openai/o3": m(200_000, 100_000, 2, 8, 0.5),
  "openai/o4-mini": m(200_000, 100_000, 1.1, 4.4, 0.275),
  "openai/gpt-5": m(400_000, 128_000, 1.25, 10, 0.125),
  "openai/gpt-5-mini": m(400_000, 128_000, 0.25, 2, 0.025),
  "openai/gpt-5-nano": m(400_000, 128_000, 0.05, 0.4, 0.005),
  "anthropic/claude-opus-4-1": m(200_000, 32_000, 15, 75, 1.5, 18.75),
  "anthropic/claude-sonnet-4-5": m(200_000, 64_000, 3, 15, 0.3, 3.75),
  "anthropic/claude-sonnet-4-0": m(200_000, 64_000, 3, 15, 0.3, 3.75),
  "anthropic/claude-haiku-4-5": m(200_000, 64_000, 1, 5, 0.1, 1.25),
  "anthropic/claude-3-5-haiku-latest": m(200_000, 8_192, 0.8, 4, 0.08, 1),
  // Gemini's prices here are those of prompts up to 200k tokens; longer prompts cost more.
  "google/gemini-2.5-pro": m(1_048_576, 65_536, 1.25, 10, 0.31),
  "google/gemini-2.5-flash": m(1_048_576, 65_536, 0.3, 2.5, 0.075),
  "google/gemini-3-pro-preview": m(1_048_576, 65_536, 2, 12, 0.2),
  "mistral/mistral-large-latest": m(131_072, 16_384, 2, 6),
  "mistral/mistral-small-latest": m(131_072, 16_384, 0.1, 0.3),
  "xai/grok-4": m(256_000, 64_000, 3, 15, 0.75),
  "groq/llama-3.3-70b-versatile": m(131_072, 32_768, 0.59, 0.79),
  "deepseek/deepseek-chat": m(128_000, 8_192, 0.28, 0.42, 0.028),
  "deepseek/deepseek-reasoner": m(128_000, 65_536, 0.28, 0.42, 0.028),
};

/** What an unknown model (a local server, a new release) is assumed to allow; it costs nothing. */
export const DEFAULT_MODEL_INFO: ModelInfo = { limit: { context: 128_000, output: 4_096 } };

/** Catalog lookup with user overrides layered over the built-in table. Pure. */
export function modelInfo(ref: string, overrides: Readonly<Record<string, ModelInfo>> = {}): ModelInfo {
  return overrides[ref] ?? BUILTIN_MODELS[ref] ?? DEFAULT_MODEL_INFO;
}

export interface Usage {
  input: number;
  output: number;
  reasoning?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * Dollar cost of one call. `input` counts every prompt token including cached ones (as the AI SDK
 * reports it), so cache reads and writes are priced at their own rates and the rest at the input
 * rate. Reasoning tokens are part of `output`.
 */
export function costOf(usage: Usage, cost: ModelCost | undefined): number {
  if (!cost) return 0;
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  const plainInput = Math.max(0, usage.input - cacheRead - cacheWrite);
  const dollars =
    plainInput * cost.input +
    cacheRead * (cost.cacheRead ?? cost.input) +
    cacheWrite * (cost.cacheWrite ?? cost.input) +
    usage.output * cost.output;
  return dollars / 1_000_000;
}

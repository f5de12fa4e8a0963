// The shapes of a model's limits and prices: plain data that the config, the catalog and each provider share.
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

/**
 * A catalog entry in one line: context window, output limit, then list prices per million tokens
 * (input, output, and cache read and write where the provider prices them apart).
 */
export function priced(
  context: number,
  output: number,
  input: number,
  outputCost: number,
  cacheRead?: number,
  cacheWrite?: number,
): ModelInfo {
  return {
    limit: { context, output },
    cost: {
      input,
      output: outputCost,
      ...(cacheRead === undefined ? {} : { cacheRead }),
      ...(cacheWrite === undefined ? {} : { cacheWrite }),
    },
  };
}

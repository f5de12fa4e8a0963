import type { ModelCost, ModelInfo } from "../model/model-info.js";
import { PROVIDER_DEFINITIONS } from "./providers/index.js";

export { type ModelCost, ModelCostSchema, type ModelInfo, ModelInfoSchema } from "../model/model-info.js";

/**
 * Limits and list prices of common models as published by their providers in 2025, gathered from
 * each provider's definition and keyed by `provider/model`. Prices move: `models` in arbor.json
 * overrides any entry, and models not listed here get DEFAULT_MODEL_INFO.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelInfo>> = Object.fromEntries(
  PROVIDER_DEFINITIONS.flatMap((definition) =>
    Object.entries(definition.models ?? {}).map(([model, info]) => [`${definition.name}/${model}`, info] as const),
  ),
);

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

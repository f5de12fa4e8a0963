import type { TokenUsage } from "../model/message.js";

export function addUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  return {
    input: total.input + step.input,
    output: total.output + step.output,
    reasoning: total.reasoning + step.reasoning,
    cacheRead: total.cacheRead + step.cacheRead,
    cacheWrite: total.cacheWrite + step.cacheWrite,
  };
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 });

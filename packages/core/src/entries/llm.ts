/**
 * `@arbor/core/llm`: model plumbing a host wires itself — cassettes to record and replay model calls,
 * embedders, cache keys, thinking levels and retry notices. Used by the CLI, the demo script and the
 * benchmarks; the model registry and the LLM cache are public.
 */
export { cacheKey } from "../llm/cache/request-key.js";
export { type Cassette, loadCassette, saveCassette } from "../llm/cassette/cassette-file.js";
export { cassettePlayer, cassetteResolver } from "../llm/cassette/cassette-player.js";
export { CassetteRecorder } from "../llm/cassette/cassette-recorder.js";
export { PROVIDER_DEFINITIONS } from "../llm/providers/index.js";
export { createEmbedder } from "../llm/registry.js";
export type { RetryNotice } from "../llm/retry.js";
export { parseThinkingLevel, THINKING_LEVEL_HINT } from "../model/entry.js";

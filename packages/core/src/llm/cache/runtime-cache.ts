import { join } from "node:path";
import type { Config } from "../../config/schema.js";
import { FileCacheStore } from "./file-cache-store.js";
import { LlmCache } from "./llm-cache.js";

/**
 * The cache a runtime uses: the one given, none when given `false`, else a file-backed one under
 * `$ARBOR_HOME/cache/llm` when the config turns it on (`ENABLE_LLM_CACHE`; off by default, since a cached answer hides a model's variation).
 * `owned` says the runtime made it, so the runtime closes it.
 */
export function runtimeCache(
  option: LlmCache | false | undefined,
  config: Config,
  arborHome: string,
): { cache: LlmCache | undefined; owned: boolean } {
  if (option === false) return { cache: undefined, owned: false };
  if (option !== undefined) return { cache: option, owned: false };
  if (!config.cache.enabled) return { cache: undefined, owned: false };
  const store = new FileCacheStore(join(arborHome, "cache", "llm"));
  return { cache: new LlmCache({ store, ttlSeconds: config.cache.ttl }), owned: true };
}

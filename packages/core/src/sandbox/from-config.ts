import type { Config } from "../config/schema.js";
import { parseStoreSpec } from "../store/spec.js";
import { Sandbox } from "./sandbox.js";

/**
 * The runtime's sandbox from its config: the global settings, each configured agent's, and the
 * store's own files hidden when they live outside Arbor's home (a database server is reached over
 * the network, which the sandbox has none of).
 */
export function sandboxFromConfig(config: Config, arborHome: string, env: Readonly<Record<string, string | undefined>>): Sandbox {
  const agents = Object.fromEntries(Object.entries(config.agents).map(([name, agent]) => [name, agent.sandbox]));
  return new Sandbox({ settings: config.sandbox, agents, arborHome, env, hide: storeFiles(config.store) });
}

function storeFiles(spec: string | undefined): string[] {
  if (!spec) return [];
  try {
    const parsed = parseStoreSpec(spec);
    if (parsed.kind === "file") return [parsed.dir];
    if (parsed.kind === "sqlite" && parsed.file !== ":memory:") return [parsed.file, `${parsed.file}-wal`, `${parsed.file}-shm`];
  } catch {
    // A bad spec fails where the store is opened, with its own error.
  }
  return [];
}

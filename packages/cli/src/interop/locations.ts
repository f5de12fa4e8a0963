import { join } from "node:path";
import type { ImportSource } from "@arbor/core/interop";
import type { Io } from "../io.js";

/**
 * Where each agent keeps its sessions when nothing else is said. pi, Claude Code and Codex honour
 * an environment variable that moves their home; OpenCode follows the XDG data directory.
 */
export function defaultLocation(source: ImportSource, io: Pick<Io, "env" | "homedir">): string {
  const env = io.env;
  switch (source) {
    case "pi":
      return env.PI_CODING_AGENT_SESSION_DIR ?? join(env.PI_CODING_AGENT_DIR ?? join(io.homedir, ".pi", "agent"), "sessions");
    case "claude-code":
      return join(env.CLAUDE_CONFIG_DIR ?? join(io.homedir, ".claude"), "projects");
    case "codex":
      return join(env.CODEX_HOME ?? join(io.homedir, ".codex"), "sessions");
    case "opencode":
      return join(env.XDG_DATA_HOME ?? join(io.homedir, ".local", "share"), "opencode", "opencode.db");
  }
}

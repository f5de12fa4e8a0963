import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ClaudeFile, ImportSource } from "@arbor/core/interop";
import { ArborError } from "@arbor/core/open";

/** One thing to convert: a session file (with its sub-agent files) or an OpenCode database. */
export type ImportUnit =
  | { kind: "jsonl"; path: string }
  | { kind: "claude-code"; path: string; agentFiles: string[] }
  | { kind: "opencode-db"; path: string }
  | { kind: "opencode-rows"; path: string };

/** A file seen and deliberately left alone, with why. */
export interface Passed {
  path: string;
  reason: string;
}

async function kindOf(path: string): Promise<"file" | "dir"> {
  try {
    return (await stat(path)).isDirectory() ? "dir" : "file";
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ArborError(
        "invalid_input",
        `Cannot read ${path}: no such file or directory. Give a session file or a directory of them.`,
      );
    }
    throw err;
  }
}

/** Every `.jsonl` file under `dir`, sorted, at any depth. */
async function jsonlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith(".jsonl")) out.push(join(d.parentPath, d.name));
  }
  return out.sort();
}

const CLAUDE_AGENT_FILE = /^agent-[^/]+\.jsonl$/;

/**
 * The units to import from `path` for `source`. A directory is searched at any depth; a Claude Code
 * session brings its sub-agent files (beside it for 2.0, in `<session>/subagents/` for 2.1).
 */
export async function discover(source: ImportSource, path: string): Promise<{ units: ImportUnit[]; passed: Passed[] }> {
  const kind = await kindOf(path);
  const passed: Passed[] = [];
  switch (source) {
    case "pi":
    case "codex":
      return { units: (kind === "dir" ? await jsonlFiles(path) : [path]).map((p) => ({ kind: "jsonl", path: p })), passed };
    case "opencode": {
      if (kind === "dir") {
        const db = join(path, "opencode.db");
        await kindOf(db);
        return { units: [{ kind: "opencode-db", path: db }], passed };
      }
      return { units: [{ kind: path.endsWith(".jsonl") ? "opencode-rows" : "opencode-db", path }], passed };
    }
    case "claude-code": {
      const files = kind === "dir" ? await jsonlFiles(path) : [path];
      const units: ImportUnit[] = [];
      const cache: SiblingAgents = new Map();
      for (const f of files) {
        if (!CLAUDE_AGENT_FILE.test(basename(f))) {
          units.push({ kind: "claude-code", path: f, agentFiles: await claudeAgentFiles(f, cache) });
        } else if (kind === "file") {
          throw new ArborError(
            "invalid_input",
            `${f} is a Claude Code sub-agent file; import the session it belongs to (the <session-id>.jsonl beside it or above its subagents/ directory).`,
          );
        } else if (basename(dirname(f)) !== "subagents") {
          // 2.0 sub-agent files sit beside their session; they are read with it, matched by session id.
          passed.push({ path: f, reason: "Claude Code sub-agent file whose session file is not here" });
        }
      }
      return {
        units,
        passed: passed.filter((p) => !units.some((u) => u.kind === "claude-code" && u.agentFiles.includes(p.path))),
      };
    }
  }
}

/** The session each 2.0-style sub-agent file beside the sessions of `dir` belongs to, read once per directory. */
type SiblingAgents = Map<string, Array<{ path: string; sessionId: string | undefined }>>;

async function siblingAgents(dir: string, cache: SiblingAgents) {
  const known = cache.get(dir);
  if (known) return known;
  const found: Array<{ path: string; sessionId: string | undefined }> = [];
  for (const name of (await readdir(dir)).sort()) {
    if (!CLAUDE_AGENT_FILE.test(name)) continue;
    const path = join(dir, name);
    const first = (await readFile(path, "utf8")).split("\n", 1)[0] ?? "";
    let sessionId: string | undefined;
    try {
      const v = JSON.parse(first) as { sessionId?: unknown };
      if (typeof v.sessionId === "string") sessionId = v.sessionId;
    } catch {
      // a torn first line: the file names no session
    }
    found.push({ path, sessionId });
  }
  cache.set(dir, found);
  return found;
}

/** The sub-agent files of a Claude Code session file: `<stem>/subagents/agent-*.jsonl` and siblings naming its session. */
async function claudeAgentFiles(sessionFile: string, cache: SiblingAgents): Promise<string[]> {
  const dir = dirname(sessionFile);
  const stem = basename(sessionFile, ".jsonl");
  const out: string[] = [];
  const sub = join(dir, stem, "subagents");
  try {
    for (const name of (await readdir(sub)).sort()) if (CLAUDE_AGENT_FILE.test(name)) out.push(join(sub, name));
  } catch {
    // no subagents directory: a session without 2.1-style sub-agents
  }
  for (const a of await siblingAgents(dir, cache)) if (a.sessionId === stem) out.push(a.path);
  return out;
}

export async function readClaudeFiles(paths: readonly string[]): Promise<ClaudeFile[]> {
  return Promise.all(paths.map(async (p) => ({ name: basename(p), text: await readFile(p, "utf8") })));
}

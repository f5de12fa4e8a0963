import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, onTestFinished } from "vitest";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { type SandboxSettings, SandboxSettingsSchema } from "../../src/sandbox/settings.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

/** The bubblewrap the test setup found; empty when there is none (the suites skip, loudly, at the end of the run). */
export const BWRAP = process.env.ARBOR_TEST_BWRAP_FOUND ?? "";

/** `describe` for suites that need a real sandbox. */
export const describeSandbox = BWRAP ? describe : describe.skip;

/** The host's first /etc/shadow line (a password hash) when it has one. */
export const SHADOW_LINE = (() => {
  try {
    return readFileSync("/etc/shadow", "utf8").split("\n")[0] ?? "";
  } catch {
    return "";
  }
})();

/** A secret in Arbor's own environment that no sandboxed process may see. */
export const ENV_SECRET = `arbor-env-secret-${process.pid}`;

export interface Host {
  workspace: string;
  /** A folder beside the workspace: nothing may change in it. */
  outside: string;
  arborHome: string;
  /** The host user's home the sandbox is told about, with SSH and cloud credentials. */
  home: string;
  store: Store;
  sandbox: Sandbox;
  /** Every file of the protected places with its hash (or link target): compare before and after. */
  fingerprint(): Record<string, string>;
}

/**
 * A workspace (a git repository with arbor.json and .env), a home with credentials, Arbor's home with
 * a token file and the store (`file` or `sqlite`), and the runtime's sandbox over them.
 */
export async function hostFor(storeKind: "file" | "sqlite", settings: Partial<SandboxSettings> = {}): Promise<Host> {
  // Not under /tmp: the sandbox's /tmp is private, and the host's folders beside the workspace must be
  // the real read-only view, not a private copy.
  const root = realpathSync(mkdtempSync("/var/tmp/arbor-escape-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, "workspace");
  const outside = join(root, "outside");
  const arborHome = join(root, "arbor-home");
  const home = join(root, "home");
  for (const dir of [workspace, outside, arborHome, join(home, ".ssh"), join(home, ".aws")]) mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: workspace });
  writeFileSync(join(workspace, "arbor.json"), '{"model":"x/y"}\n');
  writeFileSync(join(workspace, ".env"), "API_KEY=workspace-secret\n");
  writeFileSync(join(workspace, "notes.txt"), "hello\n");
  writeFileSync(join(outside, "victim.txt"), "untouched\n");
  writeFileSync(join(home, ".ssh", "id_ed25519"), "ssh-private-key-canary\n");
  writeFileSync(join(home, ".aws", "credentials"), "aws-secret-canary\n");
  writeFileSync(join(arborHome, "token"), "arbor-token-canary\n");
  const store =
    storeKind === "file"
      ? await openStore({ kind: "file", dir: join(arborHome, "sessions") })
      : await openStore({ kind: "sqlite", file: join(arborHome, "arbor.db") });
  const sandbox = new Sandbox({
    settings: SandboxSettingsSchema.parse({ mode: "required", ...settings }),
    arborHome,
    home,
    env: { ...process.env, ARBOR_ESCAPE_SECRET: ENV_SECRET },
  });
  const watched = [join(workspace, ".git"), join(workspace, "arbor.json"), join(workspace, ".env"), outside, arborHome, home];
  return { workspace, outside, arborHome, home, store, sandbox, fingerprint: () => fingerprint(watched) };
}

function fingerprint(paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (path: string) => {
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (!info) return;
    if (info.isSymbolicLink()) out[path] = `-> ${readlinkSync(path)}`;
    else if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    // The SQLite store's files change under the store's own checkpoints (a worker thread copies the
    // WAL into the database): its database is compared by what it holds, its WAL and index with it.
    else if (path.endsWith(".db-wal") || path.endsWith(".db-shm")) return;
    else if (path.endsWith(".db")) out[path] = databaseFingerprint(path);
    else out[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
  };
  for (const path of paths) visit(path);
  return out;
}

/** A hash of every row of every table of the SQLite database at `path`, as committed. */
function databaseFingerprint(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const hash = createHash("sha256");
    const tables = db.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all() as string[];
    for (const table of tables) {
      hash.update(table);
      for (const row of db.prepare(`select * from "${table}" order by rowid`).raw().iterate()) hash.update(JSON.stringify(row));
    }
    return hash.digest("hex");
  } finally {
    db.close();
  }
}

import { isAbsolute, join, resolve } from "node:path";
import { BASE_ENV, type SandboxSettings } from "./settings.js";

/**
 * What a sandboxed process may touch, as absolute paths, decided before anything starts: pure, so
 * the backends only translate it (bubblewrap's mounts today, a Seatbelt profile later).
 */
export interface SandboxPolicy {
  workspace: string;
  /** The private temp folder, the process's `/tmp` and `$HOME`; made per call, removed after. */
  tmp: string;
  /** Writable besides the workspace and the temp folder. */
  writable: string[];
  /** Not visible at all (an empty folder or an empty file is put over them). */
  hidden: string[];
  /** Visible again under a hidden folder, read-only. */
  readable: string[];
  /** Inside the workspace, writable no more. */
  readOnly: string[];
  /** Hosts the egress proxy lets through; empty means no network at all. */
  allowHosts: string[];
  env: Record<string, string>;
}

export interface PolicyInputs {
  workspace: string;
  tmp: string;
  settings: SandboxSettings;
  /** Arbor's own home (the store, tokens, approvals): hidden. */
  arborHome: string;
  /** The host user's home: hidden, with `readable` re-exposed. */
  home: string;
  /** More places to hide (the store when it lives elsewhere, a token file). */
  hide?: readonly string[];
  /** More places re-exposed read-only (an interpreter found under the home). */
  readable?: readonly string[];
  /** More widened places for this call (granted through an ask). */
  writable?: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
}

/** Names in the workspace that are re-protected: the repository's history and hooks, Arbor's config, secrets. */
export const PROTECTED_NAMES = [".git", "arbor.json", ".env", ".env.local", ".env.development", ".env.production", ".env.test"];

/** Files hidden even though the read-only root would show them. */
const HIDDEN_SYSTEM = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/root", "/home", "/run", "/var/run"];

export function sandboxPolicy(inputs: PolicyInputs, existingEnvFiles: readonly string[] = []): SandboxPolicy {
  const abs = (p: string) => (isAbsolute(p) ? resolve(p) : resolve(inputs.workspace, p));
  const protectedPaths = [...PROTECTED_NAMES, ...existingEnvFiles].map((name) => join(inputs.workspace, name));
  const hideProtected = inputs.settings.protect === "hidden";
  return {
    workspace: resolve(inputs.workspace),
    tmp: inputs.tmp,
    writable: unique([...inputs.settings.writable, ...(inputs.writable ?? [])].map(abs)),
    hidden: unique([
      ...HIDDEN_SYSTEM,
      resolve(inputs.home),
      resolve(inputs.arborHome),
      ...(inputs.hide ?? []).map(abs),
      ...(hideProtected ? protectedPaths : []),
    ]),
    readable: unique([...inputs.settings.readable, ...(inputs.readable ?? [])].map(abs)),
    readOnly: hideProtected ? [] : unique(protectedPaths),
    allowHosts: unique(inputs.settings.network.allow.map((h) => h.toLowerCase())),
    env: passedEnv(inputs.env, [...BASE_ENV, ...inputs.settings.env], inputs.tmp),
  };
}

/** The variables passed in: the listed names (a trailing `*` is a prefix), with HOME and TMPDIR pointing at the temp folder. */
export function passedEnv(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
  tmp: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (names.some((n) => (n.endsWith("*") ? key.startsWith(n.slice(0, -1)) : key === n))) out[key] = value;
  }
  out.HOME = tmp;
  out.TMPDIR = tmp;
  return out;
}

/** Whether `host` is one the allowlist names (`*.example.com` covers subdomains, not the apex). */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return allow.some((rule) => (rule.startsWith("*.") ? h.endsWith(rule.slice(1)) : h === rule));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

import { z } from "zod";

/** How protected paths inside a writable workspace are re-protected: readable but not writable, or not there at all. */
export const PROTECT_MODES = ["read-only", "hidden"] as const;

/**
 * `sandbox` in arbor.json, and the per-agent override (`agents.<name>.sandbox`, whose lists add to the
 * global ones). Every process a tool starts (bash, python_repl, stdio MCP servers, skills' commands)
 * runs under it.
 */
export const SandboxSettingsSchema = z.strictObject({
  /** `auto`: sandboxed when a backend is available, else said once; `required`: refuse to run without; `off`. */
  mode: z.enum(["auto", "required", "off"]).default("auto"),
  /** Folders writable besides the workspace and the private temp folder (absolute, or relative to the workspace). */
  writable: z.array(z.string().min(1)).default([]),
  /** Folders made readable again under a hidden one (the host's home), e.g. a toolchain installed there. */
  readable: z.array(z.string().min(1)).default([]),
  /** `.git`, `arbor.json` and `.env*` of the workspace: read-only (default) or hidden. */
  protect: z.enum(PROTECT_MODES).default("read-only"),
  network: z
    .strictObject({
      /** Hosts reachable through the egress proxy (`registry.npmjs.org`, `*.github.com`); empty: no network. */
      allow: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  /** Environment variables passed in (names, `*` suffix for a prefix); every other one is left out. */
  env: z.array(z.string().min(1)).default([]),
});

export const AgentSandboxSchema = z.strictObject({
  mode: z.enum(["auto", "required", "off"]).optional(),
  writable: z.array(z.string().min(1)).optional(),
  readable: z.array(z.string().min(1)).optional(),
  protect: z.enum(PROTECT_MODES).optional(),
  network: z.strictObject({ allow: z.array(z.string().min(1)).optional() }).optional(),
  env: z.array(z.string().min(1)).optional(),
});

export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;
export type AgentSandboxSettings = z.infer<typeof AgentSandboxSchema>;

/** An agent's settings: its mode and protection win, its lists add to the global ones. */
export function settingsForAgent(global: SandboxSettings, agent: AgentSandboxSettings | undefined): SandboxSettings {
  if (!agent) return global;
  return {
    mode: agent.mode ?? global.mode,
    protect: agent.protect ?? global.protect,
    writable: [...global.writable, ...(agent.writable ?? [])],
    readable: [...global.readable, ...(agent.readable ?? [])],
    network: { allow: [...global.network.allow, ...(agent.network?.allow ?? [])] },
    env: [...global.env, ...(agent.env ?? [])],
  };
}

/** Variables a command needs to behave normally and that carry no secret. */
export const BASE_ENV = ["PATH", "LANG", "LC_*", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLUMNS", "LINES"];

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ArborError } from "../errors.js";
import type { Availability, Command, SandboxBackend } from "./backend.js";
import { bubblewrapBackend } from "./bubblewrap.js";
import type { EgressProxy } from "./egress-proxy.js";
import { sandboxPolicy } from "./policy.js";
import { type AgentSandboxSettings, type SandboxSettings, SandboxSettingsSchema, settingsForAgent } from "./settings.js";

export interface SandboxOptions {
  settings?: SandboxSettings;
  /** Per-agent settings (`agents.<name>.sandbox`). */
  agents?: Readonly<Record<string, AgentSandboxSettings | undefined>>;
  /** Arbor's home: hidden from every sandboxed process. */
  arborHome: string;
  /** More places hidden (the store when configured elsewhere, a token file). */
  hide?: readonly string[];
  /** The host user's home; `os.homedir()` by default. */
  home?: string;
  /** The environment variables are chosen from; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The confining backend; bubblewrap by default (the only one on Linux). */
  backend?: SandboxBackend;
}

/** What one call asks of the sandbox. */
export interface SandboxRequest {
  /** The workspace root (writable). */
  workspace: string;
  /** Where the process starts. */
  cwd: string;
  agent?: string | undefined;
  /** Read-only places re-exposed for this call (an interpreter under the home). */
  readable?: readonly string[];
  /** Widened for this call through an ask. */
  writable?: readonly string[];
  hosts?: readonly string[];
}

/** One confined process's lease: the command to spawn, and what the sandbox saw, released by `close`. */
export interface SandboxedCall {
  /** Whether the process is confined (false under `off`, or `auto` without a backend). */
  confined: boolean;
  /** Said once per runtime when `auto` found no backend: the model and the user read it in the tool result. */
  notice?: string;
  command: Command;
  /** Hosts the egress proxy refused so far. */
  refusedHosts(): string[];
  close(): Promise<void>;
}

/**
 * The sandbox every process a tool starts goes through: it picks the backend by `sandbox.mode`,
 * builds the policy, makes the private temp folder and, when hosts are allowed, the egress proxy.
 * Without a backend, `auto` runs unconfined and says so once; `required` refuses with an error.
 */
export class Sandbox {
  private readonly settings: SandboxSettings;
  private readonly backend: SandboxBackend;
  private probe: Promise<Availability> | undefined;
  private warned = false;

  constructor(private readonly options: SandboxOptions) {
    this.settings = options.settings ?? SandboxSettingsSchema.parse({});
    this.backend = options.backend ?? bubblewrapBackend();
  }

  /** The backend's availability, probed once. */
  availability(): Promise<Availability> {
    this.probe ??= this.backend.availability();
    return this.probe;
  }

  settingsFor(agent: string | undefined): SandboxSettings {
    return settingsForAgent(this.settings, agent ? this.options.agents?.[agent] : undefined);
  }

  /**
   * Whether a call of `agent` would be confined (or, under `required` without a backend, refused):
   * a command run by someone else (an editor's terminal) could not be, so it runs here instead.
   */
  async confines(agent: string | undefined): Promise<boolean> {
    const mode = this.settingsFor(agent).mode;
    if (mode === "off") return false;
    return mode === "required" || (await this.availability()).available;
  }

  async prepare(request: SandboxRequest, inner: Command): Promise<SandboxedCall> {
    const settings = this.settingsFor(request.agent);
    const env = this.options.env ?? process.env;
    if (settings.mode === "off") return unconfined(inner, env);
    const found = await this.availability();
    if (!found.available) {
      if (settings.mode === "required") {
        throw new ArborError(
          "tool_failed",
          `sandbox.mode is "required" but ${found.reason}; ${found.install}, or set sandbox.mode to "auto".`,
        );
      }
      const call = unconfined(inner, env);
      if (this.warned) return call;
      this.warned = true;
      return {
        ...call,
        notice:
          `[Arbor: this command ran WITHOUT a sandbox: ${found.reason}. To confine tools, ${found.install}; ` +
          'sandbox.mode "required" refuses to run without one.]',
      };
    }
    const tmp = await mkdtemp(join(tmpdir(), "arbor-sandbox-"));
    const hosts = [...settings.network.allow, ...(request.hosts ?? [])];
    let proxy: EgressProxy | undefined;
    try {
      const envFiles = (await readdir(request.workspace).catch(() => [] as string[])).filter((n) => n.startsWith(".env"));
      const policy = sandboxPolicy(
        {
          workspace: request.workspace,
          tmp,
          settings: { ...settings, network: { allow: hosts } },
          arborHome: this.options.arborHome,
          home: this.options.home ?? homedir(),
          env,
          ...(this.options.hide ? { hide: this.options.hide } : {}),
          ...(request.readable ? { readable: request.readable } : {}),
          ...(request.writable ? { writable: request.writable } : {}),
        },
        envFiles,
      );
      // Without allowed hosts there is no proxy at all: the network namespace holds only loopback.
      // The proxy's module loads only for a call that lets some hosts through.
      proxy =
        policy.allowHosts.length > 0
          ? await import("./egress-proxy.js").then(({ startEgressProxy }) => startEgressProxy(policy.allowHosts))
          : undefined;
      const wrapped = await this.backend.wrap(inner, policy, { cwd: request.cwd, egressSocket: proxy?.socket });
      const owned = proxy;
      return {
        confined: true,
        command: wrapped.command,
        refusedHosts: () => owned?.refused() ?? [],
        async close() {
          // The cgroup goes once the namespace's last zombie is reaped; the call does not wait for that.
          void wrapped.release();
          await owned?.close();
          await rm(tmp, { recursive: true, force: true });
        },
      };
    } catch (err) {
      await proxy?.close();
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }
}

function unconfined(inner: Command, env: Readonly<Record<string, string | undefined>>): SandboxedCall {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return {
    confined: false,
    command: { ...inner, env: { ...merged, ...inner.env } },
    refusedHosts: () => [],
    close: async () => {},
  };
}

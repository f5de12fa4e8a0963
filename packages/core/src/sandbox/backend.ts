import type { SandboxPolicy } from "./policy.js";

/** A program to start: what `spawn` receives. */
export interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** A confined command and what releases the backend's own resources once it has ended (a cgroup). */
export interface Wrapped {
  command: Command;
  release(): Promise<void>;
}

/** Whether a backend can run here, and if not, what to do about it (shown to the user once). */
export type Availability = { available: true; detail: string } | { available: false; reason: string; install: string };

/**
 * An OS mechanism that confines a process to a `SandboxPolicy`. Backends translate; they decide
 * nothing. Bubblewrap (Linux namespaces) is the one shipped; Seatbelt (`sandbox-exec` with a
 * generated profile) fits the same shape on macOS, where `wrap` would write the profile and
 * `egress` would be a localhost port instead of a unix socket.
 */
export interface SandboxBackend {
  readonly name: "bubblewrap" | "none";
  /** Probed once per runtime. */
  availability(): Promise<Availability>;
  /**
   * The command that runs `inner` confined, in `cwd`. `egressSocket` is the unix socket of the egress
   * proxy when the policy allows hosts; the backend makes it reachable as `http://127.0.0.1:<port>`.
   */
  wrap(inner: Command, policy: SandboxPolicy, where: { cwd: string; egressSocket?: string | undefined }): Promise<Wrapped>;
}

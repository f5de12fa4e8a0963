import { createRuntime, type Runtime, type RuntimeOptions } from "@arbor/core";
import type { Io } from "./io.js";
import { arborHomeOf } from "./store.js";

/**
 * The runtime of a CLI command: the process's environment and ARBOR_HOME, and the command's name on
 * the leases it takes (so `session_busy` elsewhere names "arbor run", "arbor serve"…). One function,
 * so every command builds its runtime the same way and a new shared option is added in one place.
 */
export function cliRuntime(
  io: Pick<Io, "env" | "homedir">,
  holderName: string,
  options: Omit<RuntimeOptions, "env" | "arborHome" | "holderName">,
): Runtime {
  return createRuntime({ env: io.env, arborHome: arborHomeOf(io), ...options, holderName });
}

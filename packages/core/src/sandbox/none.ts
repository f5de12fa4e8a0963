import type { SandboxBackend } from "./backend.js";

/** No confinement: the process runs with Arbor's own authority (`sandbox.mode: "off"`, or `auto` without a backend). */
export const noSandbox: SandboxBackend = {
  name: "none",
  availability: async () => ({ available: true, detail: "no sandbox" }),
  wrap: async (inner) => ({ command: inner, release: async () => {} }),
};

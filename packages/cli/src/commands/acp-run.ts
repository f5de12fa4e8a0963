import type { Config, Runtime } from "@arbor/core";
import { serveAcpStdio } from "@arbor/server";
import { type OptionValues, stringOption } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { type Io, writeLines } from "../io.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { serveOverStdio } from "../run/stdio.js";
import { withStore } from "../store.js";

/** `arbor acp`'s work, loaded when the command runs (see acp.ts for its flags and help). */
export async function runAcpCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  if (operands.length > 0) throw new UsageError(`unexpected argument '${operands[0]}'. Usage: arbor acp [options]`);
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const config = loadCommandConfig(io, cwd, {
    model: stringOption(values, "model"),
    baseURL: stringOption(values, "base-url"),
  });
  return withStore(io, values, async (store, resolved) => {
    const runtimeOf = (servers: Config["mcp"]["servers"] = {}) =>
      cliRuntime(io, "arbor acp", {
        store,
        config: { ...config, mcp: { ...config.mcp, servers: { ...config.mcp.servers, ...servers } } },
        cwd,
        snapshots: true,
      });
    const runtime = runtimeOf();
    // The runtimes a session's MCP servers (the editor's) were started in; closed with the agent.
    const more: Runtime[] = [];
    const runtimeWith = (servers: Config["mcp"]["servers"]) => {
      const made = runtimeOf(servers);
      more.push(made);
      return made;
    };
    try {
      await serveOverStdio(io, ({ input, output, stop }) =>
        serveAcpStdio({
          runtime,
          runtimeWith,
          input,
          output,
          stop,
          onReady: () => writeLines(io.stderr, [`arbor acp: serving ${resolved.label} over stdio.`]),
        }),
      );
    } finally {
      await Promise.all([runtime, ...more].map((r) => r.close()));
    }
    return EXIT_OK;
  });
}

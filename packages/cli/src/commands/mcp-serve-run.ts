import { serveMcpStdio } from "@arbor/server";
import { stringOption } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import { writeLines } from "../io.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { serveOverStdio } from "../run/stdio.js";
import type { CommandContext } from "./command.js";

export async function runMcpServe(ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const cwd = workspaceDir(io, stringOption(ctx.values, "cwd"));
  const config = loadCommandConfig(io, cwd, {
    model: stringOption(ctx.values, "model"),
    baseURL: stringOption(ctx.values, "base-url"),
  });
  const runtime = cliRuntime(io, "arbor mcp serve", {
    store: ctx.store,
    config,
    cwd,
  });
  try {
    await serveOverStdio(io, ({ input, output, stop }) =>
      serveMcpStdio({
        runtime,
        input,
        output,
        stop,
        onReady: () => writeLines(io.stderr, [`arbor mcp serve: serving ${ctx.storeLabel} over stdio.`]),
      }),
    );
  } finally {
    await runtime.close();
  }
}

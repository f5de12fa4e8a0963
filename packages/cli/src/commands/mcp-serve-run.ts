import { Readable, Writable } from "node:stream";
import { createRuntime } from "@arbor/core";
import { serveMcpStdio } from "@arbor/server";
import { stringOption } from "../args.js";
import { writeLines } from "../io.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

export async function runMcpServe(ctx: CommandContext): Promise<void> {
  const { io } = ctx;
  const cwd = workspaceDir(io, stringOption(ctx.values, "cwd"));
  const config = loadCommandConfig(io, cwd, {
    model: stringOption(ctx.values, "model"),
    baseURL: stringOption(ctx.values, "base-url"),
  });
  const runtime = createRuntime({
    store: ctx.store,
    config,
    env: io.env,
    cwd,
    arborHome: arborHomeOf(io),
    holderName: "arbor mcp serve",
  });
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stdout.write(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      done();
    },
  });
  let release: (() => void) | undefined;
  const interrupted = new Promise<void>((resolve) => {
    release = io.onInterrupt?.(() => resolve());
  });
  try {
    await serveMcpStdio({
      runtime,
      input: Readable.from(io.stdin),
      output,
      stop: interrupted,
      onReady: () => writeLines(io.stderr, [`arbor mcp serve: serving ${ctx.storeLabel} over stdio.`]),
    });
  } finally {
    release?.();
    await runtime.close();
  }
}

import { Readable, Writable } from "node:stream";
import { createRuntime } from "@arbor/core";
import { serveMcpStdio } from "@arbor/server";
import { stringOption } from "../args.js";
import { writeLines } from "../io.js";
import { loadCommandConfig, RUN_OPTIONS, workspaceDir } from "../run/flags.js";
import { arborHomeOf } from "../store.js";
import type { Command } from "./command.js";

export const mcpServe: Command = {
  name: "serve",
  operands: [],
  summary: "Serve Arbor to an MCP client over stdio until stdin ends or Ctrl-C.",
  details: [
    "Tools: run_prompt (a new session, or continue one with session_id), continue_from_entry, fork_session, list_sessions, read_session, read_trace, list_pending, answer_permission, answer_plan. A run reports progress to a client that asks for it, and cancelling its request aborts the run (what it did is kept).",
    "Permission asks and plan approvals wait for answer_permission / answer_plan (list_pending shows them). stdout carries only MCP messages; diagnostics go to stderr.",
    "The same tools are served over Streamable HTTP at /mcp by 'arbor serve', behind its token.",
  ],
  options: {
    cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]>,
    model: RUN_OPTIONS.model as NonNullable<(typeof RUN_OPTIONS)["model"]>,
    "base-url": RUN_OPTIONS["base-url"] as NonNullable<(typeof RUN_OPTIONS)["base-url"]>,
  },
  async run(ctx) {
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
  },
};

import { Readable, Writable } from "node:stream";
import { type Config, createRuntime, type Runtime } from "@arbor/core";
import { serveAcpStdio } from "@arbor/server";
import { type OptionDefs, stringOption } from "../args.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { writeLines } from "../io.js";
import { loadCommandConfig, RUN_OPTIONS, workspaceDir } from "../run/flags.js";
import { arborHomeOf, withStore } from "../store.js";
import type { TopCommand } from "./command.js";

const OPTIONS: OptionDefs = {
  cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]>,
  model: RUN_OPTIONS.model as NonNullable<(typeof RUN_OPTIONS)["model"]>,
  "base-url": RUN_OPTIONS["base-url"] as NonNullable<(typeof RUN_OPTIONS)["base-url"]>,
};

export const acpCommand: TopCommand = {
  name: "acp",
  usage: "",
  summary: "Be an agent for an ACP client (an editor such as Zed) over stdio until stdin ends or Ctrl-C.",
  details: [
    "Speaks the Agent Client Protocol: sessions are Arbor sessions, the session modes are Arbor's agents (build, plan, …), a prompt streams the agent's text, thoughts, tool calls (with diffs and file locations) and plans, and permission asks and plan approvals are asked in the editor (allow once, always, reject).",
    "session/list, session/load (the history replayed) and session/resume reach the sessions of the store; _arbor/entries, _arbor/fork and _arbor/continue_from_entry reach its tree. stdout carries only ACP messages; diagnostics go to stderr. See docs/acp.md.",
  ],
  options: OPTIONS,
  async run(io, values, operands) {
    if (operands.length > 0) throw new UsageError(`unexpected argument '${operands[0]}'. Usage: arbor acp [options]`);
    const cwd = workspaceDir(io, stringOption(values, "cwd"));
    const config = loadCommandConfig(io, cwd, {
      model: stringOption(values, "model"),
      baseURL: stringOption(values, "base-url"),
    });
    return withStore(io, values, async (store, resolved) => {
      const runtimeOf = (servers: Config["mcp"]["servers"] = {}) =>
        createRuntime({
          store,
          config: { ...config, mcp: { ...config.mcp, servers: { ...config.mcp.servers, ...servers } } },
          env: io.env,
          cwd,
          arborHome: arborHomeOf(io),
          holderName: "arbor acp",
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
        await serveAcpStdio({
          runtime,
          runtimeWith,
          input: Readable.from(io.stdin),
          output,
          stop: interrupted,
          onReady: () => writeLines(io.stderr, [`arbor acp: serving ${resolved.label} over stdio.`]),
        });
      } finally {
        release?.();
        await Promise.all([runtime, ...more].map((r) => r.close()));
      }
      return EXIT_OK;
    });
  },
};

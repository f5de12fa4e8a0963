import type { RunInput, Runtime, Store } from "@arbor/core";
import type { OptionValues } from "../args.js";
import { flag, stringOption } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import { UsageError } from "../errors.js";
import { readInput } from "../files.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { type Io, writeLines } from "../io.js";
import { terminalMcpLogin } from "../mcp/terminal-login.js";
import { cassetteSetup } from "../run/cassette-setup.js";
import { loadCommandConfig, RUN_USAGE, type RunFlags, readRunFlags } from "../run/flags.js";
import { mcpPromptInput, mcpServerNames } from "../run/mcp-input.js";
import { playable, playRun, type RuntimeLike } from "../run/play.js";
import { shellWord } from "../run/shell.js";
import { withStore } from "../store.js";
import { startTelemetry } from "../telemetry.js";

/** The prompt of `arbor run -` or `--prompt-file`: the whole text, which must say something. */
async function readPrompt(io: Io, from: string): Promise<string> {
  const text = await readInput(io, from, "Give a readable file with the prompt, or - to read it from stdin.");
  if (text.trim() === "") {
    const where = from === "-" ? "stdin" : from;
    throw new UsageError(`the prompt read from ${where} is empty: say what the agent should do.`);
  }
  return text;
}

/** `--session` and `--from` as typed (ids or git-like prefixes), made whole against the store. */
async function resolveIds(store: Store, flags: RunFlags): Promise<RunFlags> {
  if (flags.sessionId === undefined) return flags;
  const sessionId = await resolveSessionId(store, flags.sessionId);
  const from = flags.from === undefined ? undefined : await resolveEntryId(store, sessionId, flags.from);
  return { ...flags, sessionId, ...(from === undefined ? {} : { from }) };
}

/**
 * The runtime as `arbor run` drives it: --resume wakes the session's interrupted run; a prompt for a
 * session is admitted and started in one runtime call (`runs.start`, which takes the session's lease
 * before it answers), so no other process starts a run between the check and this run, and a session
 * another process runs takes the prompt as a steering message.
 */
function resumable(flags: RunFlags, runtime: Runtime): RuntimeLike<RunInput> {
  if (flags.sessionId === undefined) return playable(runtime);
  if (!flags.resume) return { ...playable(runtime), start: (input) => runtime.runs.start({ ...input, onBusy: "steer" }) };
  const id = flags.sessionId;
  return {
    run: (input) =>
      runtime.runs.resume(id, {
        ...(input.agent !== undefined ? { agent: input.agent } : {}),
        ...(input.model !== undefined ? { model: input.model } : {}),
        ...(input.maxTurns !== undefined ? { maxTurns: input.maxTurns } : {}),
        ...(input.debug !== undefined ? { debug: input.debug } : {}),
      }),
    logged: (sessionId) => runtime.events.logged(sessionId),
    close: () => runtime.close(),
  };
}

/**
 * A session whose run was cut off is worth a word before it is continued: with no prompt the user
 * most likely wants it finished (--resume); with one, it goes on from the prompt and they should know.
 */
async function noteInterrupted(io: Io, store: Store, id: string, prompt: string, storeArg: string): Promise<void> {
  const meta = await store.getSession(id);
  const interrupted = meta?.status === "interrupted";
  const resume = `arbor run${storeArg} --session ${id} --resume`;
  if (prompt === "") {
    if (interrupted) {
      throw new UsageError(
        `session ${id} was interrupted: the process running it stopped mid-run. Finish that run with '${resume}', or give a prompt to continue the session with it.`,
      );
    }
    throw new UsageError(`missing "<prompt>": say what the agent should do next in session ${id}. Usage: ${RUN_USAGE}`);
  }
  if (interrupted) {
    writeLines(io.stderr, [
      `Session ${id} was interrupted (the process running it stopped mid-run); continuing it with your prompt. To finish the interrupted run instead: ${resume}`,
    ]);
  }
}

export async function runRunCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  const given = readRunFlags(io, values, operands);
  const flags = given.promptFrom === undefined ? given : { ...given, prompt: await readPrompt(io, given.promptFrom) };
  const checked = flags;
  const config = loadCommandConfig(io, flags.cwd, flags);
  const cassette = await cassetteSetup(io, flags, config);
  const storeFlag = stringOption(values, "store");
  const store = storeFlag === undefined ? "" : ` --store ${shellWord(storeFlag)}`;
  const telemetry = await startTelemetry(config, io.env);
  try {
    return await withStore(io, values, async (opened, resolved) => {
      const flags = await resolveIds(opened, checked);
      if (flags.sessionId !== undefined && !flags.resume) await noteInterrupted(io, opened, flags.sessionId, flags.prompt, store);
      const { code } = await playRun({
        io,
        json: flag(values, "json"),
        yes: flags.yes,
        store: opened,
        storeLabel: resolved.label,
        createRuntime: (onPermission, onPlanApproval, onRetry, onQuestion, onElicitation) => {
          // A login an MCP server wants mid-run, with someone at the terminal: the link on stderr, the
          // browser back to a loopback listener. Without anyone, the call fails with mcp_login_required.
          const login = io.prompt ? terminalMcpLogin((line) => writeLines(io.stderr, [line]), io.env) : undefined;
          const runtime = cliRuntime(io, "arbor run", {
            store: opened,
            config,
            ...cassette.runtime,
            ...(telemetry ? { telemetry: telemetry.observer } : {}),
            cwd: flags.cwd,
            snapshots: true,
            onPermission,
            onPlanApproval,
            onRetry,
            onQuestion,
            onElicitation,
            ...(login ? { mcpLoginRedirect: login.redirect, onMcpLogin: login.handler } : {}),
          });
          login?.bind(runtime);
          return resumable(flags, runtime);
        },
        input: {
          // `/mcp:<server>:<prompt>` and `@server:uri` mentions: the runtime fills them in.
          ...(await mcpPromptInput(flags.prompt, mcpServerNames(config))),
          ...(flags.sessionId !== undefined ? { sessionId: flags.sessionId } : {}),
          ...(flags.from !== undefined ? { fromEntryId: flags.from } : {}),
          ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
          ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
          // Named for the run, so a continued session switches to it (and records the change).
          ...(flags.model !== undefined ? { model: flags.model } : {}),
          ...(flags.thinking !== undefined ? { thinking: flags.thinking } : {}),
          ...(flags.debug !== undefined ? { debug: flags.debug } : {}),
        },
        storeArg: store,
        next: (id) => [
          ["continue", `arbor run${store} --session ${id} "…"`],
          ["inspect", `arbor sessions show ${id}${store}`],
        ],
      });
      await cassette.finish();
      return code;
    });
  } finally {
    // Spans still buffered go out before the process ends.
    await telemetry?.shutdown();
  }
}

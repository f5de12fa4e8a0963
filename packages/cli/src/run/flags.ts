import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Config, type DebugLevel, loadConfig, type ThinkingLevel } from "@arbor/core";
import { DEBUG_LEVELS, DebugLevelSchema } from "@arbor/core/events";
import { parseThinkingLevel, THINKING_LEVEL_HINT } from "@arbor/core/llm";
import { assertEntryId, assertSessionId } from "@arbor/core/wire";
import { flag, intOption, type OptionValues, stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import type { Io } from "../io.js";

import { MAX_TURNS_LIMIT, RUN_USAGE } from "./options.js";

export { MAX_TURNS_LIMIT, RUN_OPTIONS, RUN_USAGE } from "./options.js";

/** `arbor run`'s command line, checked: nothing here has touched a store or a model. */
export interface RunFlags {
  /** Empty only with --resume, or with --session (then the session decides what to say). */
  prompt: string;
  /** Where the prompt is to be read from: a file, or `-` for stdin (`arbor run -`, `--prompt-file`); `prompt` is then empty. */
  promptFrom?: string | undefined;
  /** `--from`: the entry (id or prefix) to continue from; only with `sessionId`. */
  from?: string | undefined;
  /** `--resume`: wake the session's interrupted run; there is no prompt. */
  resume: boolean;
  /** Absolute, an existing directory. */
  cwd: string;
  model?: string | undefined;
  baseURL?: string | undefined;
  sessionId?: string | undefined;
  agent?: string | undefined;
  maxTurns?: number | undefined;
  thinking?: ThinkingLevel | undefined;
  /** `--debug`: what DebugMiddleware keeps of the run's calls. */
  debug?: DebugLevel | undefined;
  yes: boolean;
  /** `--record`: absolute; its directory exists. */
  record?: string | undefined;
  /** `--replay`: absolute. */
  replay?: string | undefined;
}

/** The workspace from `--cwd`: it must be an existing directory (exit 2 otherwise). */
export function workspaceDir(io: Io, given: string | undefined): string {
  const dir = resolve(io.cwd ?? process.cwd(), given ?? ".");
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`--cwd ${given ?? dir}: no such directory. Pass an existing directory as the workspace.`);
  }
  if (!isDir) throw new UsageError(`--cwd ${given ?? dir}: not a directory. Pass the directory the tools should work in.`);
  return dir;
}

/** The prompt, or none: `--resume` takes none, and `--session` alone is answered once the session is read. */
function promptOf(operands: readonly string[], sessionId: string | undefined, resume: boolean): string {
  if (resume) {
    if (sessionId === undefined) throw new UsageError("--resume needs --session <id>: the interrupted session to take up.");
    if (operands.length > 0) {
      throw new UsageError(
        "--resume takes no prompt: it finishes the interrupted run as it was. Drop the prompt, or drop --resume to continue the session with it.",
      );
    }
    return "";
  }
  if (operands.length === 0) {
    if (sessionId !== undefined) return "";
    throw new UsageError(`missing "<prompt>". Usage: ${RUN_USAGE}`);
  }
  // Unquoted words are one prompt, as a shell user would mean them.
  const prompt = operands.join(" ");
  if (prompt.trim() === "") {
    throw new UsageError(`the prompt is empty: say what the agent should do, e.g. arbor run "fix the failing test".`);
  }
  return prompt;
}

/** `arbor run -` or `--prompt-file <file>`: where to read the prompt from, checked against the other ways to give one. */
function promptSource(values: OptionValues, operands: readonly string[]): string | undefined {
  const file = stringOption(values, "prompt-file");
  const dash = operands.length === 1 && operands[0] === "-";
  if (file === undefined) return dash ? "-" : undefined;
  if (file.trim() === "") throw new UsageError("--prompt-file needs a file, e.g. --prompt-file task.md (or - for stdin).");
  if (operands.length > 0) throw new UsageError("give the prompt once: either as words or with --prompt-file, not both.");
  return file;
}

export function readRunFlags(io: Io, values: OptionValues, operands: readonly string[]): RunFlags {
  const sessionId = stringOption(values, "session");
  if (sessionId !== undefined) assertSessionId(sessionId);
  const resume = flag(values, "resume");
  const promptFrom = promptSource(values, operands);
  if (promptFrom !== undefined && resume) throw new UsageError("--resume takes no prompt: drop the prompt file or -.");
  const prompt = promptFrom !== undefined ? "" : promptOf(operands, sessionId, resume);
  const from = stringOption(values, "from");
  if (from !== undefined) {
    if (sessionId === undefined) throw new UsageError("--from needs --session <id>: the entry is looked up in that session.");
    if (resume) throw new UsageError("--from and --resume do not go together: --resume finishes the run where it stopped.");
    assertEntryId(from);
  }
  const maxTurns = intOption(values, "max-turns", 1, MAX_TURNS_LIMIT);
  const agent = stringOption(values, "agent");
  if (agent !== undefined && agent.trim() === "") throw new UsageError("--agent needs a name, e.g. --agent plan.");
  const model = stringOption(values, "model");
  if (model !== undefined && model.trim() === "") throw new UsageError("--model needs a value, e.g. --model openai/gpt-4o.");
  const thinkingText = stringOption(values, "thinking");
  const thinking = thinkingText === undefined ? undefined : parseThinkingLevel(thinkingText);
  if (thinkingText !== undefined && thinking === undefined) {
    throw new UsageError(`--thinking ${thinkingText}: use one of ${THINKING_LEVEL_HINT}.`);
  }
  const { record, replay } = cassetteFlags(io, values, model);
  const debug = debugFlag(values);
  return {
    prompt,
    ...(promptFrom === undefined ? {} : { promptFrom: promptFrom === "-" ? "-" : resolve(io.cwd ?? process.cwd(), promptFrom) }),
    ...(from === undefined ? {} : { from }),
    resume,
    cwd: workspaceDir(io, stringOption(values, "cwd")),
    model,
    baseURL: stringOption(values, "base-url"),
    sessionId,
    agent,
    maxTurns,
    ...(thinking === undefined ? {} : { thinking }),
    ...(debug === undefined ? {} : { debug }),
    yes: flag(values, "yes"),
    ...(record === undefined ? {} : { record }),
    ...(replay === undefined ? {} : { replay }),
  };
}

/** `--debug <level>`: one of the DebugMiddleware levels, else exit 2 naming them. */
function debugFlag(values: OptionValues): DebugLevel | undefined {
  const text = stringOption(values, "debug");
  if (text === undefined) return undefined;
  const parsed = DebugLevelSchema.safeParse(text.trim());
  if (!parsed.success) throw new UsageError(`--debug ${text}: use one of ${DEBUG_LEVELS.join(", ")}.`);
  return parsed.data;
}

/** `--record` and `--replay`, checked: not both, no --model with a replay, a directory to record into. */
function cassetteFlags(
  io: Io,
  values: OptionValues,
  model: string | undefined,
): { record: string | undefined; replay: string | undefined } {
  const given = (name: "record" | "replay") => {
    const value = stringOption(values, name);
    if (value !== undefined && value.trim() === "") {
      throw new UsageError(`--${name} needs a file, e.g. --${name} run.cassette.json.`);
    }
    return value === undefined ? undefined : resolve(io.cwd ?? process.cwd(), value);
  };
  const record = given("record");
  const replay = given("replay");
  if (record !== undefined && replay !== undefined) {
    throw new UsageError("--record and --replay do not go together: a replay makes no model calls to record.");
  }
  if (replay !== undefined && model !== undefined) {
    throw new UsageError("--replay answers from the cassette's recorded model; drop --model.");
  }
  if (record !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(dirname(record)).isDirectory();
    } catch {}
    if (!isDir) throw new UsageError(`--record ${record}: no directory ${dirname(record)} to write the cassette in.`);
  }
  return { record, replay };
}

/**
 * Settings for a command that runs models: files and environment, with --model and --base-url on
 * top. Loaded before any store is opened, so a bad arbor.json or flag value touches nothing.
 */
export function loadCommandConfig(
  io: Io,
  cwd: string,
  flags: { model?: string | undefined; baseURL?: string | undefined },
): Config {
  const overrides: Record<string, unknown> = {};
  if (flags.model !== undefined) overrides.model = flags.model;
  if (flags.baseURL !== undefined) overrides.baseURL = flags.baseURL;
  return loadConfig({ cwd, env: io.env, overrides });
}

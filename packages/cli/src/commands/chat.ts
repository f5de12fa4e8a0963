import type { OptionValues } from "../args.js";
import { UsageError } from "../errors.js";
import type { Io } from "../io.js";
import type { RunFlags } from "../run/flags.js";
import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";

/** `chat/start.ts`'s entry, which declares itself of this type. */
export type StartChat = (io: Io, values: OptionValues, flags: RunFlags) => Promise<number>;

/**
 * The chat's screen, loaded only when a chat starts. Named by a variable so that neither Node (at
 * start-up) nor the type checker (in programs that include this command, such as the tests') follows
 * it into Ink and React.
 */
const CHAT_UI = "../chat/start.js";

/** The flags of `arbor run` that make sense for a whole conversation. */
const CHAT_FLAGS = ["model", "base-url", "session", "thinking", "agent", "cwd", "yes"] as const;

export const chatCommand: TopCommand = {
  name: "chat",
  usage: "",
  summary:
    "Talk with the agent in the terminal: streamed answers, tool calls as they run, asks answered with a key, slash commands for the session tree.",
  details: [
    "Type a prompt and press Enter; the answer streams in, Markdown rendered, with a line per tool call. A line ending in \\ (or Alt-Enter) starts a new line; ↑ and ↓ walk the prompts sent before; Tab completes an @path from the workspace.",
    "Permission asks and plan approvals wait on the screen for a key: [o]nce, [a]lways, always in [p]roject, [g]lobally or [r]eject; [y]es or [n]o for a plan.",
    "While the agent works, Esc sends what you typed to it as a steer (it reads it before its next model call) and Enter queues it as the next prompt. Ctrl-C stops the turn, keeping what it did; Ctrl-C twice (or Ctrl-D on an empty prompt) quits.",
    "Slash commands: /tree, /fork [entry], /leaf <entry>, /label [entry] <text>, /compact [focus], /revert [entry], /model [name], /thinking [level], /agent [name], /sessions, /resume <id>, /new, /help, /quit.",
    "--session <id> resumes a session (an id or a prefix). 'arbor' with no arguments on a terminal starts a chat too. It needs a terminal: scripts use 'arbor run'.",
  ],
  options: Object.fromEntries(CHAT_FLAGS.map((name) => [name, RUN_OPTIONS[name]])) as typeof RUN_OPTIONS,
  async run(io, values, operands) {
    if (operands.length > 0) {
      throw new UsageError(
        `arbor chat takes no prompt: start it, then type. For one prompt, use 'arbor run "${operands.join(" ")}"'.`,
      );
    }
    if (io.prompt === undefined || !io.stdout.isTTY) {
      throw new UsageError("arbor chat needs a terminal (stdin and stdout); in scripts and pipes use 'arbor run \"<prompt>\"'.");
    }
    // The chat has no prompt of its own; `run`'s checks of the other flags apply as they are.
    const { readRunFlags } = await import("../run/flags.js");
    const flags = readRunFlags(io, values, ["(chat)"]);
    // Ink and React load only here, so every other command starts without them.
    const { startChat } = (await import(CHAT_UI)) as { startChat: StartChat };
    return startChat(io, values, flags);
  },
};

import type { Io } from "../io.js";
import type { Ask, AskReply, RunView } from "../render/live.js";
import { terminalAnswerer } from "./answerer.js";

/** What the CLI needs of a pending ask; the runtime's `PendingPermission` has it. */
export interface PendingAsk {
  sessionId: string;
  agent: string;
  tool?: string | undefined;
  request: Ask;
}

/** An "always" that holds beyond the session: every session of the workspace, or everywhere. */
export interface WiderAlways {
  reply: "always";
  scope: "project" | "global";
}

/** The runtime's `onPermission` as the CLI answers it. */
export type AskHandler = (pending: PendingAsk, signal: AbortSignal) => Promise<AskReply | WiderAlways | undefined>;

const ANSWERS: Readonly<Record<string, AskReply | WiderAlways>> = {
  o: "once",
  once: "once",
  y: "once",
  yes: "once",
  a: "always",
  always: "always",
  p: { reply: "always", scope: "project" },
  project: { reply: "always", scope: "project" },
  g: { reply: "always", scope: "global" },
  global: { reply: "always", scope: "global" },
  r: "reject",
  reject: "reject",
  n: "reject",
  no: "reject",
};

/** Unclear answers are asked again this many times, then the ask is rejected. */
const MAX_QUESTIONS = 3;

/**
 * Reads one answer from the terminal; end of input, an abort or repeated nonsense is a rejection.
 * The question shows exactly what an "always" would approve (the ask's `always` patterns, else its
 * patterns): never more than that is approved.
 */
async function askPerson(
  prompt: NonNullable<Io["prompt"]>,
  pending: PendingAsk,
  signal: AbortSignal,
): Promise<AskReply | WiderAlways> {
  const { permission, patterns, always } = pending.request;
  const target = patterns.length > 0 ? patterns.join(", ") : "this request";
  const tool = pending.tool !== undefined && pending.tool !== permission ? ` (tool ${pending.tool})` : "";
  const wider =
    always !== undefined && always.join(", ") !== patterns.join(", ") ? ` (always approves ${always.join(", ")})` : "";
  const question = `? allow ${permission} for ${target}${tool}${wider}? [o]nce / [a]lways / always in [p]roject / [g]lobally / [r]eject: `;
  for (let i = 0; i < MAX_QUESTIONS; i++) {
    const answer = await prompt(question, signal);
    if (answer === undefined || signal.aborted) return "reject";
    const reply = ANSWERS[answer.trim().toLowerCase()];
    if (reply !== undefined) return reply;
  }
  return "reject";
}

/** Who answers permission asks (see `terminalAnswerer`): `--yes` allows each once, the model is never told that someone refused. */
export function createAskHandler(opts: {
  yes: boolean;
  io: Io;
  view: RunView;
  onNobody: (pending: PendingAsk) => void;
}): AskHandler {
  const { view } = opts;
  return terminalAnswerer<PendingAsk, AskReply | WiderAlways>({
    ...opts,
    // --yes answers for the user, but never widens the sandbox: that is asked of a person or refused.
    yes: (pending) => {
      if (!opts.yes || pending.request.permission === "sandbox") return undefined;
      view.answered(pending.request, "once", "yes");
      return "once";
    },
    person: async (prompt, pending, signal) => {
      const reply = await askPerson(prompt, pending, signal);
      view.answered(pending.request, typeof reply === "string" ? reply : reply.reply, "user");
      return reply;
    },
  });
}

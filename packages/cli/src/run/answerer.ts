import type { Io } from "../io.js";
import type { RunView } from "../render/live.js";

export type Prompt = NonNullable<Io["prompt"]>;

/**
 * Who answers one kind of ask of a run, so that a run never hangs on an ask nobody sees: `yes` (the
 * answer `--yes` gives, where it gives one); else the person at the terminal (`person`), when stdin
 * is one; else nobody: `onNobody` stops the run, and the ask stays waiting in the store.
 */
export function terminalAnswerer<R, A>(opts: {
  io: Io;
  view: RunView;
  yes?: (request: R) => A | undefined;
  person: (prompt: Prompt, request: R, signal: AbortSignal) => Promise<A>;
  onNobody: (request: R) => void;
}): (request: R, signal: AbortSignal) => Promise<A | undefined> {
  return async (request, signal) => {
    const given = opts.yes?.(request);
    if (given !== undefined) return given;
    const prompt = opts.io.prompt;
    if (prompt === undefined) {
      opts.onNobody(request);
      return undefined;
    }
    opts.view.breakLine();
    return opts.person(prompt, request, signal);
  };
}

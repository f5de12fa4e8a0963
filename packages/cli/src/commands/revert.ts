import { assertSessionId } from "@arbor/core/wire";
import { flag, stringOption } from "../args.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import { withStore } from "../store.js";
import type { TopCommand } from "./command.js";

const REVERT_USAGE = "arbor revert <session> [--to <entry>]";
const UNREVERT_USAGE = "arbor unrevert <session>";

function sessionOperand(operands: readonly string[], usage: string): string {
  if (operands.length === 0) throw new UsageError(`missing <session>. Usage: ${usage}`);
  if (operands.length > 1) throw new UsageError(`unexpected argument '${operands[1]}'. Usage: ${usage}`);
  assertSessionId(operands[0]!);
  return operands[0]!;
}

const plural = (n: number) => (n === 1 ? "1 file" : `${n} files`);

/** `arbor revert`: undo what the agent did to the workspace since an entry, and go back there in the session. */
export const revertCommand: TopCommand = {
  name: "revert",
  usage: "<session> [--to <entry>]",
  summary: "Put the workspace back as it was before an entry (default: the last user message) and move the session there.",
  details: [
    "Each step of a run records the files it changed (an arbor.patch entry; snapshots live in a private history under $ARBOR_HOME/snapshots, never in your own git repository). Revert restores every file the agent's steps changed after the entry, removes files they created, and moves the session's leaf to just before the entry; files ignored by .gitignore are left alone.",
    "Undo it with 'arbor unrevert <session>' before sending a new message. With --json: {sessionId, to, leaf, workspace, files}.",
  ],
  options: {
    to: { type: "string", valueName: "entry", description: "The entry to go back before (see 'arbor sessions tree')." },
  },
  async run(io, values, operands) {
    const given = sessionOperand(operands, REVERT_USAGE);
    const toGiven = stringOption(values, "to");
    if (toGiven !== undefined && toGiven.trim() === "") throw new UsageError(`--to is empty. Usage: ${REVERT_USAGE}`);
    return withStore(io, values, async (store) => {
      const sessionId = await resolveSessionId(store, given);
      const to = toGiven === undefined ? undefined : await resolveEntryId(store, sessionId, toGiven);
      const result = await withSessionRuntime(io, store, "arbor revert", (runtime) => runtime.sessions.revert(sessionId, to));
      if (flag(values, "json")) writeJson(io.stdout, result);
      else
        writeLines(io.stdout, [
          `Reverted session ${sessionId} to before entry ${result.to}: ${plural(result.files)} restored${result.workspace ? ` in ${result.workspace}` : ""}.`,
          `Undo with: arbor unrevert ${sessionId}`,
        ]);
      return EXIT_OK;
    });
  },
};

/** `arbor unrevert`: undo the last revert, files and leaf. */
export const unrevertCommand: TopCommand = {
  name: "unrevert",
  usage: "<session>",
  summary: "Undo the last 'arbor revert' of a session: its files and its place in the session come back.",
  details: [
    "Works while the revert is the session's last step (no message sent since). With --json: {sessionId, leaf, workspace, files}.",
  ],
  options: {},
  async run(io, values, operands) {
    const given = sessionOperand(operands, UNREVERT_USAGE);
    return withStore(io, values, async (store) => {
      const sessionId = await resolveSessionId(store, given);
      const result = await withSessionRuntime(io, store, "arbor unrevert", (runtime) => runtime.sessions.unrevert(sessionId));
      if (flag(values, "json")) writeJson(io.stdout, result);
      else
        writeLines(io.stdout, [
          `Unreverted session ${sessionId}: ${plural(result.files)} restored, leaf back at ${result.leaf ?? "the start"}.`,
        ]);
      return EXIT_OK;
    });
  },
};

import { flag } from "../args.js";
import { UsageError } from "../errors.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { oneLine } from "../render/text.js";
import { withSessionRuntime } from "../session-runtime.js";
import { type Command, validateSessionIdOperand } from "./command.js";

/** Longer labels are typos or pasted text: a label is a bookmark, read in one line of the tree. */
const MAX_LABEL = 200;

export const sessionsLabel: Command = {
  name: "label",
  operands: ["session", "entry", "text"],
  requiredOperands: 2,
  summary: "Label an entry (a bookmark shown in 'sessions tree' and 'sessions show'); --clear removes it.",
  details: [
    "A label is recorded as an entry of its own, so the tree keeps its history. With --json: {sessionId, entryId, label}.",
  ],
  validate(values, operands) {
    validateSessionIdOperand(values, operands);
    const text = operands[2];
    if (flag(values, "clear")) {
      if (text !== undefined) throw new UsageError("--clear takes no <text>: drop one or the other.");
      return;
    }
    if (text === undefined) throw new UsageError("missing <text>: the label to set (or --clear to remove the entry's label).");
    const label = oneLine(text);
    if (label === "") throw new UsageError("the label is empty: give a word or two, or --clear to remove the label.");
    if (label.length > MAX_LABEL) throw new UsageError(`the label is ${label.length} characters; keep it under ${MAX_LABEL}.`);
  },
  options: { clear: { type: "boolean", description: "Remove the entry's label instead of setting one." } },
  async run(ctx) {
    const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
    const entryId = await resolveEntryId(ctx.store, sessionId, ctx.operands[1] as string);
    const text = ctx.operands[2];
    const label = text === undefined ? undefined : oneLine(text);
    // Appended at the leaf, as the HTTP API does: a label entry is invisible to the model's context.
    await withSessionRuntime(ctx.io, ctx.store, "arbor sessions label", (runtime) =>
      runtime.sessions.label(sessionId, entryId, label),
    );
    if (ctx.json) writeJson(ctx.io.stdout, { sessionId, entryId, label: label ?? null });
    else
      ctx.io.stdout.write(
        label === undefined ? `Cleared the label of entry ${entryId}.\n` : `Labelled entry ${entryId} "${label}".\n`,
      );
  },
};

import { flag } from "../args.js";
import { UsageError } from "../errors.js";
import { oneLine } from "../render/text.js";
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
  async validate(values, operands) {
    await validateSessionIdOperand(values, operands);
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
  run: async (ctx) => (await import("./sessions-label-run.js")).runSessionsLabel(ctx),
};

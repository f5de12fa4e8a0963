import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { type Command, checkEntryId, validateSessionIdOperand } from "./command.js";

import { FORMATS } from "./export-formats.js";

export const sessionsExport: Command = {
  name: "export",
  operands: ["id"],
  summary: "Write a session as Arbor's JSON document (default), a pi session file or an ATIF trajectory.",
  details: [
    "arbor: meta and every entry, the same for every store, so 'arbor sessions import' can load it into any other.",
    "pi: a pi v3 session file (JSONL) with the whole tree: ids, parents and every message as pi writes them.",
    "atif: an ATIF v1.4 trajectory (the format of the Harbor benchmark runner) of the active path; a call that started a sub-agent names its sub-trace.",
    "--leaf <entry> writes one branch (root → entry) instead, with the branches it refers to (summaries, labels).",
    "To stdout unless --out is given; with --out and --json, prints {sessionId, format, out, entries}.",
  ],
  async validate(values, operands) {
    await validateSessionIdOperand(values, operands);
    const format = stringOption(values, "format") ?? "arbor";
    if (!(FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got '${format}'.`);
    const leaf = stringOption(values, "leaf");
    if (leaf !== undefined) await checkEntryId(leaf);
  },
  options: {
    format: { type: "string", valueName: FORMATS.join("|"), description: "What to write (default: arbor)." },
    leaf: { type: "string", valueName: "entry", description: "Write only the branch that ends at this entry." },
    out: {
      type: "string",
      valueName: "file",
      description: "Write to this file (replaced whole, never half-written) instead of stdout.",
    },
  },
  run: async (ctx) => (await import("./sessions-export-run.js")).runSessionsExport(ctx),
};

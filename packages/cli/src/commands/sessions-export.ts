import { stringOption } from "../args.js";
import { writeOutputAtomically } from "../files.js";
import { writeJson } from "../io.js";
import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsExport: Command = {
  name: "export",
  operands: ["id"],
  summary: "Write a session (meta and every entry) as one JSON document.",
  details: [
    "The format is the same for every store, so 'arbor sessions import' can load it into any other.",
    "To stdout unless --out is given; with --out and --json, prints {sessionId, out, entries}.",
  ],
  validate: validateSessionIdOperand,
  options: {
    out: {
      type: "string",
      valueName: "file",
      description: "Write to this file (replaced whole, never half-written) instead of stdout.",
    },
  },
  async run(ctx) {
    const id = ctx.operands[0] as string;
    const data = await ctx.store.exportSession(id);
    const text = `${JSON.stringify(data, null, 2)}\n`;
    const out = stringOption(ctx.values, "out");
    if (out === undefined || out === "-") {
      ctx.io.stdout.write(text);
      return;
    }
    await writeOutputAtomically(out, text, "Choose an --out path in an existing, writable directory.");
    if (ctx.json) writeJson(ctx.io.stdout, { sessionId: id, out, entries: data.entries.length });
    else ctx.io.stdout.write(`Exported session ${id} (${data.entries.length} entries) to ${out}.\n`);
  },
};

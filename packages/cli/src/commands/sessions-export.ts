import { entriesToExport, toAtif, toPiSession } from "@arbor/core/interop";
import { assertEntryId } from "@arbor/core/wire";
import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { writeOutputAtomically } from "../files.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { cliVersion } from "../version.js";
import { type Command, validateSessionIdOperand } from "./command.js";

const FORMATS = ["arbor", "pi", "atif"] as const;
type Format = (typeof FORMATS)[number];

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
  validate(values, operands) {
    validateSessionIdOperand(values, operands);
    const format = stringOption(values, "format") ?? "arbor";
    if (!(FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got '${format}'.`);
    const leaf = stringOption(values, "leaf");
    if (leaf !== undefined) assertEntryId(leaf);
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
  async run(ctx) {
    const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
    const format = (stringOption(ctx.values, "format") ?? "arbor") as Format;
    const leafGiven = stringOption(ctx.values, "leaf");
    const leaf = leafGiven === undefined ? undefined : await resolveEntryId(ctx.store, id, leafGiven);
    const data = await ctx.store.exportSession(id);
    let text: string;
    let entries: number;
    switch (format) {
      case "arbor": {
        const selected =
          leaf === undefined
            ? data
            : { ...data, session: { ...data.session, leafEntryId: leaf }, entries: entriesToExport(data.entries, leaf, id) };
        text = `${JSON.stringify(selected, null, 2)}\n`;
        entries = selected.entries.length;
        break;
      }
      case "pi":
        text = toPiSession(data, leaf !== undefined ? { leaf } : {});
        entries = text.split("\n").filter(Boolean).length - 1;
        break;
      case "atif": {
        const trajectory = toAtif(data, { agentVersion: cliVersion(), ...(leaf !== undefined ? { leaf } : {}) });
        text = `${JSON.stringify(trajectory, null, 2)}\n`;
        entries = trajectory.steps.length;
        break;
      }
    }
    const out = stringOption(ctx.values, "out");
    if (out === undefined || out === "-") {
      ctx.io.stdout.write(text);
      return;
    }
    await writeOutputAtomically(out, text, "Choose an --out path in an existing, writable directory.");
    const unit = format === "atif" ? "steps" : format === "pi" ? "lines" : "entries";
    if (ctx.json) writeJson(ctx.io.stdout, { sessionId: id, format, out, entries });
    else
      ctx.io.stdout.write(`Exported session ${id} (${entries} ${unit}${format === "arbor" ? "" : `, ${format}`}) to ${out}.\n`);
  },
};

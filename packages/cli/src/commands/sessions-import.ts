import { resolve } from "node:path";
import { ArborError, SessionExportSchema } from "@arbor/core";
import { IMPORT_SOURCES, isImportSource } from "@arbor/core/interop";
import { parseOrThrow } from "@arbor/core/wire";
import { flag, stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { readInput } from "../files.js";
import { importFromAgent, reportLines } from "../interop/import-agent.js";
import { defaultLocation } from "../interop/locations.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { Command } from "./command.js";

const WHAT_TO_GIVE = "Give a file written by 'arbor sessions export', or - to read one from stdin.";

/** Parses and validates an export document; every way it can be wrong is an `invalid_input` error naming the source. */
export function parseExport(text: string, source: string) {
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ArborError("invalid_input", `${source} is not JSON (${reason}). ${WHAT_TO_GIVE}`);
  }
  if (typeof data !== "object" || data === null || (data as { format?: unknown }).format !== "arbor-session") {
    throw new ArborError(
      "invalid_input",
      `${source} is not an Arbor session export (it has no "format": "arbor-session"). ${WHAT_TO_GIVE}`,
    );
  }
  return parseOrThrow(SessionExportSchema, data, `session export in ${source}`);
}

export const sessionsImport: Command = {
  name: "import",
  operands: ["file"],
  requiredOperands: 0,
  summary: "Load a session written by 'arbor sessions export', or sessions of another agent (--from), into the store.",
  details: [
    "The file is validated first (schema, unique entry ids, parents before children); nothing is written when it is invalid.",
    "A session whose id is already in the store is refused unless --new-id is given. With --json: {sessionId, session}.",
    `With --from ${IMPORT_SOURCES.join("|")}: imports that agent's sessions from <file>, a session file or a directory searched at any depth (default: the agent's own location, ~/.pi/agent/sessions, ~/.claude/projects, ~/.codex/sessions or ~/.local/share/opencode/opencode.db).`,
    "Session ids come from the source's ids, so importing again writes nothing new. Prints what was imported and what was left out and why; with --json: {from, path, imported, alreadyImported, skipped, notImported}.",
  ],
  options: {
    "new-id": { type: "boolean", description: "Give the imported session a fresh id (to copy a session within one store)." },
    from: {
      type: "string",
      valueName: IMPORT_SOURCES.join("|"),
      description: "Import sessions written by this agent instead of an Arbor export.",
    },
  },
  validate(values, operands) {
    const from = stringOption(values, "from");
    if (from === undefined) {
      if (operands.length === 0)
        throw new UsageError(
          "missing <file>: give a file written by 'arbor sessions export' (- for stdin), or --from <agent> to import another agent's sessions.",
        );
      return;
    }
    if (!isImportSource(from)) throw new UsageError(`--from must be one of ${IMPORT_SOURCES.join(", ")}; got '${from}'.`);
    if (flag(values, "new-id"))
      throw new UsageError("--new-id does not apply to --from: imported sessions keep ids derived from the source.");
    if (operands[0] === "-") throw new UsageError("--from reads files, not stdin: give a file or a directory.");
  },
  async run(ctx) {
    const from = stringOption(ctx.values, "from");
    if (from !== undefined && isImportSource(from)) {
      const given = ctx.operands[0];
      const path = given === undefined ? defaultLocation(from, ctx.io) : resolve(ctx.io.cwd ?? process.cwd(), given);
      const report = await withSessionRuntime(ctx.io, ctx.store, "arbor sessions import", (runtime) =>
        importFromAgent(runtime, from, path),
      );
      if (ctx.json) writeJson(ctx.io.stdout, report);
      else writeLines(ctx.io.stdout, reportLines(report));
      return;
    }
    const file = ctx.operands[0] as string;
    const source = file === "-" ? "stdin" : file;
    const data = parseExport(await readInput(ctx.io, file, WHAT_TO_GIVE), source);
    const meta = await withSessionRuntime(ctx.io, ctx.store, "arbor sessions import", (runtime) =>
      runtime.sessions.import(data, { newId: flag(ctx.values, "new-id") }),
    );
    if (ctx.json) writeJson(ctx.io.stdout, { sessionId: meta.id, session: meta });
    else ctx.io.stdout.write(`${meta.id}\n`);
  },
};

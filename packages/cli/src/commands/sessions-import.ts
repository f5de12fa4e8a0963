import { flag, stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import type { Command } from "./command.js";

/**
 * The agents `--from` reads, as help names them: the same list as core's IMPORT_SOURCES (a test holds
 * them equal), written out so that help and start-up do not load the importers.
 */
export const IMPORT_SOURCE_NAMES = ["pi", "claude-code", "codex", "opencode"] as const;

export const sessionsImport: Command = {
  name: "import",
  operands: ["file"],
  requiredOperands: 0,
  summary: "Load a session written by 'arbor sessions export', or sessions of another agent (--from), into the store.",
  details: [
    "The file is validated first (schema, unique entry ids, parents before children); nothing is written when it is invalid.",
    "A session whose id is already in the store is refused unless --new-id is given. With --json: {sessionId, session}.",
    `With --from ${IMPORT_SOURCE_NAMES.join("|")}: imports that agent's sessions from <file>, a session file or a directory searched at any depth (default: the agent's own location, ~/.pi/agent/sessions, ~/.claude/projects, ~/.codex/sessions or ~/.local/share/opencode/opencode.db).`,
    "Session ids come from the source's ids, so importing again writes nothing new. Prints what was imported and what was left out and why; with --json: {from, path, imported, alreadyImported, skipped, notImported}.",
  ],
  options: {
    "new-id": { type: "boolean", description: "Give the imported session a fresh id (to copy a session within one store)." },
    from: {
      type: "string",
      valueName: IMPORT_SOURCE_NAMES.join("|"),
      description: "Import sessions written by this agent instead of an Arbor export.",
    },
  },
  async validate(values, operands) {
    const from = stringOption(values, "from");
    if (from === undefined) {
      if (operands.length === 0)
        throw new UsageError(
          "missing <file>: give a file written by 'arbor sessions export' (- for stdin), or --from <agent> to import another agent's sessions.",
        );
      return;
    }
    const { isImportSource } = await import("@arbor/core/interop");
    if (!isImportSource(from)) throw new UsageError(`--from must be one of ${IMPORT_SOURCE_NAMES.join(", ")}; got '${from}'.`);
    if (flag(values, "new-id"))
      throw new UsageError("--new-id does not apply to --from: imported sessions keep ids derived from the source.");
    if (operands[0] === "-") throw new UsageError("--from reads files, not stdin: give a file or a directory.");
  },
  run: async (ctx) => (await import("./sessions-import-run.js")).runSessionsImport(ctx),
};

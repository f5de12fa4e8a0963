import { ArborError, parseOrThrow, SessionExportSchema } from "@arbor/core/internal";
import { flag } from "../args.js";
import { readInput } from "../files.js";
import { writeJson } from "../io.js";
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
  summary: "Load a session written by 'arbor sessions export' into the store; prints its id.",
  details: [
    "The file is validated first (schema, unique entry ids, parents before children); nothing is written when it is invalid.",
    "A session whose id is already in the store is refused unless --new-id is given. With --json: {sessionId, session}.",
  ],
  options: {
    "new-id": { type: "boolean", description: "Give the imported session a fresh id (to copy a session within one store)." },
  },
  async run(ctx) {
    const file = ctx.operands[0] as string;
    const source = file === "-" ? "stdin" : file;
    const data = parseExport(await readInput(ctx.io, file, WHAT_TO_GIVE), source);
    const meta = await ctx.store.importSession(data, { newId: flag(ctx.values, "new-id") });
    if (ctx.json) writeJson(ctx.io.stdout, { sessionId: meta.id, session: meta });
    else ctx.io.stdout.write(`${meta.id}\n`);
  },
};

import { resolve } from "node:path";
import { ArborError, SessionExportSchema } from "@arbor/core";
import { isImportSource } from "@arbor/core/interop";
import { parseOrThrow } from "@arbor/core/wire";
import { flag, stringOption } from "../args.js";
import { readInput } from "../files.js";
import { importFromAgent, reportLines } from "../interop/import-agent.js";
import { defaultLocation } from "../interop/locations.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

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

export async function runSessionsImport(ctx: CommandContext): Promise<void> {
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
}

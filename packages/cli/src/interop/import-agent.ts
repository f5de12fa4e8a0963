import { readFile } from "node:fs/promises";
import { ArborError, isArborError, type Runtime } from "@arbor/core";
import {
  type Conversion,
  convertClaudeCodeSession,
  convertCodexSession,
  convertOpenCodeRows,
  convertPiSession,
  type ImportSource,
  mergeSkips,
  type SkipCounts,
} from "@arbor/core/interop";
import { discover, type ImportUnit, type Passed, readClaudeFiles } from "./discover.js";
import { readOpenCodeDatabase, readOpenCodeRows } from "./opencode-db.js";

export interface ImportedSession {
  sessionId: string;
  source: string;
  title?: string;
  entries: number;
  /** Sub-traces written with it (sub-agent sessions). */
  subTraces: number;
}

export interface ImportReport {
  from: ImportSource;
  path: string;
  imported: ImportedSession[];
  /** Sessions already in the store from an earlier import: left as they are. */
  alreadyImported: string[];
  /** Lines and records left out, by reason. */
  skipped: SkipCounts;
  /** Files not imported, by reason (not a session of this agent, a sub-agent file alone). */
  notImported: Passed[];
}

/** The conversions of one unit; reading and converting only, nothing is written. */
async function convert(source: ImportSource, unit: ImportUnit): Promise<Conversion[]> {
  switch (unit.kind) {
    case "jsonl": {
      const text = await readFile(unit.path, "utf8");
      return [source === "codex" ? convertCodexSession(text, unit.path) : convertPiSession(text, unit.path)];
    }
    case "claude-code": {
      const [main] = await readClaudeFiles([unit.path]);
      return [
        convertClaudeCodeSession(
          { ...(main as { name: string; text: string }), name: unit.path },
          await readClaudeFiles(unit.agentFiles),
        ),
      ];
    }
    case "opencode-db":
      return convertOpenCodeRows(await readOpenCodeDatabase(unit.path), unit.path);
    case "opencode-rows":
      return convertOpenCodeRows(await readOpenCodeRows(unit.path), unit.path);
  }
}

/**
 * Imports every session of `source` found at `path`. Each file is converted completely before
 * anything of it is written, so a file that is not a session writes nothing; a session already in
 * the store (its id comes from the source's id) is left alone, which makes a second import a no-op.
 * Given one file that is not a session, this throws; in a directory such files are reported and
 * the rest imported.
 */
export async function importFromAgent(
  runtime: Pick<Runtime, "store" | "sessions">,
  source: ImportSource,
  path: string,
): Promise<ImportReport> {
  const { store } = runtime;
  const { units, passed } = await discover(source, path);
  const report: ImportReport = { from: source, path, imported: [], alreadyImported: [], skipped: {}, notImported: [...passed] };
  const single = units.length === 1 && passed.length === 0;
  for (const unit of units) {
    let conversions: Conversion[];
    try {
      conversions = await convert(source, unit);
    } catch (err) {
      if (single || !isArborError(err) || err.code !== "invalid_input") throw err;
      report.notImported.push({ path: unit.path, reason: err.message });
      continue;
    }
    for (const c of conversions) {
      mergeSkips(report.skipped, c.skipped);
      const [main] = c.sessions;
      if (!main) continue;
      let written = 0;
      let mainNew = false;
      for (const s of c.sessions) {
        if (await store.getSession(s.session.id)) {
          if (s === main) report.alreadyImported.push(s.session.id);
          continue;
        }
        await runtime.sessions.import(s);
        if (s === main) mainNew = true;
        else written++;
      }
      if (mainNew || written > 0) {
        report.imported.push({
          sessionId: main.session.id,
          source: unit.path,
          ...(main.session.title ? { title: main.session.title } : {}),
          entries: main.entries.length,
          subTraces: written,
        });
      }
    }
  }
  if (report.imported.length === 0 && report.alreadyImported.length === 0 && report.notImported.length > 0 && units.length > 0) {
    const first = report.notImported[0] as Passed;
    throw new ArborError("invalid_input", `Nothing at ${path} is a ${source} session: ${first.path}: ${first.reason}`);
  }
  return report;
}

export function reportLines(r: ImportReport): string[] {
  const subs = r.imported.reduce((n, s) => n + s.subTraces, 0);
  const lines = [
    `Imported ${r.imported.length} ${r.imported.length === 1 ? "session" : "sessions"}${subs ? ` and ${subs} sub-traces` : ""} from ${r.from} (${r.path}); ${r.alreadyImported.length} already imported.`,
  ];
  for (const s of r.imported) {
    lines.push(
      `  ${s.sessionId}  ${s.entries} entries${s.subTraces ? `, ${s.subTraces} sub-traces` : ""}${s.title ? `  ${JSON.stringify(s.title.slice(0, 60))}` : ""}`,
    );
  }
  const skipped = Object.entries(r.skipped).sort((a, b) => b[1] - a[1]);
  if (skipped.length) {
    lines.push("Left out (Arbor keeps no such thing, or it only repeats what was kept):");
    for (const [reason, n] of skipped) lines.push(`  ${String(n).padStart(5)}  ${reason}`);
  }
  if (r.notImported.length) {
    lines.push("Files not imported:");
    for (const p of r.notImported) lines.push(`  ${p.path}: ${p.reason}`);
  }
  return lines;
}

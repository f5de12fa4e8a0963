import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Entry } from "../../src/model/entry.js";
import type { Part } from "../../src/model/parts.js";
import type { SessionExport } from "../../src/store/export-format.js";

const ROOT = fileURLToPath(new URL("../fixtures/sessions/", import.meta.url));

export function fixturePath(rel: string): string {
  return `${ROOT}${rel}`;
}

export function fixture(rel: string): string {
  return readFileSync(fixturePath(rel), "utf8");
}

/** The JSON objects of a JSONL fixture, read here independently of the importer's own reader. */
export function rawLines(rel: string): Array<Record<string, unknown>> {
  return fixture(rel)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function parts(s: SessionExport): Part[] {
  return s.entries.flatMap((e) => (e.type === "message" ? (e.message.content as Part[]) : []));
}

export function countParts(s: SessionExport, type: Part["type"]): number {
  return parts(s).filter((p) => p.type === type).length;
}

export function countRole(s: SessionExport, role: string): number {
  return s.entries.filter((e) => e.type === "message" && e.message.role === role).length;
}

export function countType(s: SessionExport, type: Entry["type"]): number {
  return s.entries.filter((e) => e.type === type).length;
}

/** Entries with more than one child: the branch points of the tree. */
export function branchPoints(entries: ReadonlyArray<{ id: string; parentId: string | null }>): number {
  const kids = new Map<string, number>();
  for (const e of entries) if (e.parentId !== null) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
  return [...kids.values()].filter((n) => n > 1).length;
}

/** Blocks of `type` inside the `message.content` arrays of the given raw lines. */
export function rawBlocks(lines: ReadonlyArray<Record<string, unknown>>, type: string): Array<Record<string, unknown>> {
  return lines.flatMap((l) => {
    const content = (l.message as { content?: unknown } | undefined)?.content;
    return Array.isArray(content) ? (content as Array<Record<string, unknown>>).filter((b) => b?.type === type) : [];
  });
}

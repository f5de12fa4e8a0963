import { createTwoFilesPatch, formatPatch, structuredPatch } from "diff";

/** What a tool call's arguments mean to a reader, beyond the raw JSON: an edit's diff, a goal call's changes. */

function parse(input: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);

/**
 * The unified diff of an `edit` call, without the patch's index banner. A finished call's result
 * records where in the file it changed (`metadata.regions`: the lines with context, and where they
 * start), so the diff shows the file's own line numbers and three lines of context; a call without
 * them (still running, or from an older store) shows its old text against its new, numbered from 1.
 */
export function editDiff(
  tool: string,
  input: string,
  metadata?: Record<string, unknown>,
): { path: string; diff: string } | undefined {
  if (tool !== "edit") return undefined;
  const args = parse(input);
  const path = str(args?.path);
  const before = str(args?.oldString);
  const after = str(args?.newString);
  if (path === undefined || before === undefined || after === undefined) return undefined;
  const regions = editRegions(metadata?.regions);
  if (regions.length > 0) {
    const hunks = regions.flatMap((r) =>
      structuredPatch(path, path, r.before, r.after, "", "", { context: 3 }).hunks.map((h) => ({
        ...h,
        oldStart: h.oldStart + r.oldLine - 1,
        newStart: h.newStart + r.newLine - 1,
      })),
    );
    const patch = formatPatch({ oldFileName: path, newFileName: path, oldHeader: "", newHeader: "", hunks });
    return { path, diff: patch.slice(patch.indexOf("\n---") + 1) };
  }
  const patch = createTwoFilesPatch(path, path, ensureNewline(before), ensureNewline(after), "", "", { context: 3 });
  return { path, diff: patch.slice(patch.indexOf("\n---") + 1) };
}

interface EditRegion {
  oldLine: number;
  newLine: number;
  before: string;
  after: string;
}

/** The edit tool's recorded regions, each checked (a damaged record is skipped, not trusted). */
function editRegions(value: unknown): EditRegion[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (r): r is EditRegion =>
      typeof r === "object" &&
      r !== null &&
      Number.isInteger((r as EditRegion).oldLine) &&
      Number.isInteger((r as EditRegion).newLine) &&
      typeof (r as EditRegion).before === "string" &&
      typeof (r as EditRegion).after === "string",
  );
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** What a `write` call puts in a file, to show as the file rather than as escaped JSON. */
export function writtenFile(tool: string, input: string): { path: string; content: string } | undefined {
  if (tool !== "write") return undefined;
  const args = parse(input);
  const path = str(args?.path);
  const content = str(args?.content);
  return path === undefined || content === undefined ? undefined : { path, content };
}

/** A `goal` call in words: what it added, focused, finished or gave up. */
export function goalSummary(tool: string, input: unknown): string | undefined {
  if (tool !== "goal") return undefined;
  const args = typeof input === "string" ? parse(input) : (input as Record<string, unknown> | undefined);
  if (!args) return undefined;
  const parts: string[] = [];
  const add = str(args.add) ?? (Array.isArray(args.add) ? args.add.join(", ") : undefined);
  if (add) {
    const where = str(args.under) ? ` under ${str(args.under)}` : str(args.after) ? ` after ${str(args.after)}` : "";
    parts.push(
      `added ${add
        .split(",")
        .map((g) => `“${g.trim()}”`)
        .join(", ")}${where}`,
    );
  }
  if (str(args.done)) parts.push(`done: ${str(args.done)}`);
  if (str(args.abandon)) parts.push(`abandoned: ${str(args.abandon)}`);
  if (str(args.focus)) parts.push(`focus → ${str(args.focus)}`);
  return parts.length > 0 ? `Goals: ${parts.join("; ")}` : "Goals: read the plan";
}

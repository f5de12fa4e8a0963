import type { z } from "zod";
import type { SessionExport } from "../store/export-format.js";

/** The agents whose sessions Arbor can import. */
export const IMPORT_SOURCES = ["pi", "claude-code", "codex", "opencode"] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export function isImportSource(value: unknown): value is ImportSource {
  return typeof value === "string" && (IMPORT_SOURCES as readonly string[]).includes(value);
}

/** Why lines or records were left out, with how many: `{"progress line (display only)": 57}`. */
export type SkipCounts = Record<string, number>;

/**
 * What a converter makes of one source session: the Arbor session, then its sub-traces (each
 * naming its parent in `session.parentSessionId`), parents always before their children.
 */
export interface Conversion {
  sessions: SessionExport[];
  skipped: SkipCounts;
}

/** Where an imported session came from; kept on the session so a reader can trace it back. */
export interface ImportOrigin {
  agent: ImportSource;
  sourceId: string;
  version?: string;
  /** For a sub-agent: the parent's tool call that launched it. */
  toolCallId?: string;
}

export function addSkip(skipped: SkipCounts, reason: string, n = 1): void {
  skipped[reason] = (skipped[reason] ?? 0) + n;
}

/** `value` read by `schema`; undefined when it does not fit, counted in `skipped` as a `what` Arbor cannot read. */
export function readOrSkip<T>(schema: z.ZodType<T>, value: unknown, skipped: SkipCounts, what: string): T | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  addSkip(skipped, `${what} Arbor cannot read`);
  return undefined;
}

export function mergeSkips(into: SkipCounts, from: SkipCounts): void {
  for (const [k, v] of Object.entries(from)) addSkip(into, k, v);
}

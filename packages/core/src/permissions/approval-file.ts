import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { ArborError } from "../errors.js";
import { describeIssues } from "../model/validate.js";
import { writeFileAtomic } from "../store/file/atomic-write.js";
import { type Approval, ApprovalSchema, type ListedApproval } from "./approvals.js";

/** The scopes kept in a file rather than in a session. */
export type DurableScope = "project" | "global";

/** Where the durable approvals live: the workspace's `.arbor/` and the user's Arbor home. */
export interface ApprovalPlaces {
  /** The workspace (project scope); its approvals are in `<workspace>/.arbor/approvals.json`. */
  workspace: string;
  /** `$ARBOR_HOME` (global scope); its approvals are in `<home>/approvals.json`. */
  home: string;
}

export function approvalFilePath(scope: DurableScope, places: ApprovalPlaces): string {
  switch (scope) {
    case "project":
      return join(places.workspace, ".arbor", "approvals.json");
    case "global":
      return join(places.home, "approvals.json");
  }
}

const FileRecordSchema = ApprovalSchema.omit({ revoked: true, scope: true }).extend({
  id: z.string().min(1),
  created_at: z.string(),
});
const ApprovalFileSchema = z.object({ version: z.literal(1), approvals: z.array(FileRecordSchema) });
type FileRecord = z.infer<typeof FileRecordSchema>;

/**
 * The approvals in a scope's file; none when the file does not exist. A file that is not valid is
 * an error naming it, never read as empty (the next grant would write over what it held).
 */
export function readApprovalFile(scope: DurableScope, places: ApprovalPlaces): ListedApproval[] {
  return readRecords(approvalFilePath(scope, places)).map(({ created_at: _, ...record }) => ({ ...record, scope }));
}

function readRecords(file: string): FileRecord[] {
  let text: string;
  try {
    // Every run reads both files, and most workspaces have none: a thrown ENOENT costs more than the stat.
    if (!statSync(file, { throwIfNoEntry: false })) return [];
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new ArborError("io_error", `Cannot read the approvals file ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ArborError("invalid_config", `The approvals file ${file} is not valid JSON; fix or delete it.`);
  }
  const parsed = ApprovalFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new ArborError("invalid_config", `The approvals file ${file} is not valid: ${describeIssues(parsed.error)}`);
  }
  return parsed.data.approvals;
}

function writeRecords(file: string, approvals: FileRecord[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify({ version: 1, approvals }, null, 2)}\n`, true);
}

/** Records an approval in its scope's file (once: granting the same one again keeps the first). */
export function addToApprovalFile(
  scope: DurableScope,
  places: ApprovalPlaces,
  approval: Omit<Approval, "scope" | "revoked">,
  now: Date,
): ListedApproval {
  const file = approvalFilePath(scope, places);
  const records = readRecords(file);
  const same = records.find(
    (r) => r.agent === approval.agent && r.permission === approval.permission && r.pattern === approval.pattern,
  );
  if (same) return { ...withoutDate(same), scope };
  const record: FileRecord = {
    id: `apr_${randomUUID()}`,
    agent: approval.agent,
    permission: approval.permission,
    pattern: approval.pattern,
    ...(approval.wildcard ? { wildcard: true } : {}),
    created_at: now.toISOString(),
  };
  writeRecords(file, [...records, record]);
  return { ...withoutDate(record), scope };
}

/** Removes the approval `id` from a scope's file; false when it holds none such (nothing written). */
export function removeFromApprovalFile(scope: DurableScope, places: ApprovalPlaces, id: string): boolean {
  const file = approvalFilePath(scope, places);
  const records = readRecords(file);
  const kept = records.filter((r) => r.id !== id);
  if (kept.length === records.length) return false;
  writeRecords(file, kept);
  return true;
}

function withoutDate({ created_at: _, ...record }: FileRecord): Omit<FileRecord, "created_at"> {
  return record;
}

import { z } from "zod";

/** What one step changed in the workspace: the trees before and after, and each changed file with its diff. */
export const PATCH_ENTRY_TYPE = "arbor.patch";
/** A revert: where the leaf was and how the workspace looked, so `unrevert` can put both back. */
export const REVERT_ENTRY_TYPE = "arbor.revert";
/** An unrevert that left the leaf where it was (a file or step revert, or one undone after later entries). */
export const UNREVERT_ENTRY_TYPE = "arbor.unrevert";

export const UnrevertDataSchema = z.looseObject({
  /** The `arbor.revert` entry undone. */
  revertId: z.string(),
});

export const FilePatchSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
  /** Unified diff (cut when long; empty past the per-step file limit). */
  diff: z.string(),
});
export type FilePatch = z.infer<typeof FilePatchSchema>;

export const PatchDataSchema = z.looseObject({
  /** The workspace's real path. */
  workspace: z.string(),
  /** Snapshot tree ids at the step's start and finish. */
  before: z.string(),
  after: z.string(),
  /** The assistant message whose step made the change. */
  messageEntryId: z.string().optional(),
  files: z.array(FilePatchSchema),
});
export type PatchData = z.infer<typeof PatchDataSchema>;

export const RevertDataSchema = z.looseObject({
  workspace: z.string(),
  /** The entry the workspace was taken back to before. */
  to: z.string(),
  /** The leaf before the revert. */
  fromLeaf: z.string().nullable(),
  /** The workspace at the moment of the revert (null: nothing was ever snapshotted, only the leaf moved). */
  saved: z.string().nullable(),
  /** The tree the workspace was set to. */
  restored: z.string().nullable(),
  /**
   * What was taken back: the session from an entry on (absent in older records; the leaf moved
   * there), one file, or one step's change (both leave the leaf where it was).
   */
  scope: z.enum(["session", "file", "step"]).optional(),
  /** The workspace-relative file reverted alone. */
  file: z.string().optional(),
  /** The `arbor.patch` entry of the step reverted alone. */
  step: z.string().optional(),
});
export type RevertData = z.infer<typeof RevertDataSchema>;

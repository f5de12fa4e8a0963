import { z } from "zod";

/** `customType` of the `custom` entry that records a prune on the active path, so the pruned outputs stay pruned when the session is reopened. */
export const PRUNE_ENTRY_TYPE = "arbor.prune";

/** What the model sees in place of a pruned tool result: it knows something was there and can run the tool again. */
export const PRUNED_OUTPUT = "[Old tool result content cleared]";

/**
 * The data of a prune entry: the tool calls whose results are cleared from here on down the path.
 * Sibling branches that share the pruned results never see the entry, and nothing on disk is edited.
 */
export const PruneDataSchema = z.looseObject({
  toolCallIds: z.array(z.string().min(1)).min(1),
  /** Estimated tokens the prune removed, for display. */
  tokens: z.number().int().nonnegative().optional(),
});
export type PruneData = z.infer<typeof PruneDataSchema>;

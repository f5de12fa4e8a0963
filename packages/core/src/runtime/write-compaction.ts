import { type CompactionRequest, planCompaction } from "../context/compactor.js";
import type { CompactionEntry, Entry } from "../model/entry.js";
import { applyEntry, type ContextState } from "../session/context.js";
import type { Store } from "../store/store.js";

export interface CompactInput extends CompactionRequest {
  store: Store;
  sessionId: string;
}

export interface CompactOutcome {
  entry: CompactionEntry;
  continuation?: Entry;
  /** The context after the compaction (and the continuation). */
  state: ContextState;
  /** Messages the summary replaced, and messages kept verbatim. */
  summarized: number;
  kept: number;
  splitTurn: boolean;
}

/**
 * Plans a compaction and writes it straight to the store: for a compaction asked for outside any
 * run (a run writes its plan through its journal). Writes nothing when planning fails.
 */
export async function compact(input: CompactInput): Promise<CompactOutcome> {
  const plan = await planCompaction(input);
  const [compaction, ...rest] = plan.entries;
  const entry = (await input.store.appendEntry(input.sessionId, compaction)) as CompactionEntry;
  let state = applyEntry(input.state, entry);
  let continuation: Entry | undefined;
  for (const more of rest) {
    continuation = await input.store.appendEntry(input.sessionId, more);
    state = applyEntry(state, continuation);
  }
  return {
    entry,
    ...(continuation ? { continuation } : {}),
    state,
    summarized: plan.summarized,
    kept: plan.kept,
    splitTurn: plan.splitTurn,
  };
}

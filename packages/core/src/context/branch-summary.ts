import type { BranchSummaryEntry, Entry } from "../model/entry.js";
import type { Message } from "../model/message.js";
import { buildContext } from "../session/context.js";
import type { Store } from "../store/store.js";
import type { Summarizer } from "./summarizer.js";
import { branchSummaryRequest, fileOps, withFileLists } from "./summary-prompt.js";

/**
 * The entries of `from` (a root → leaf path) that `to` does not share: the work left behind when the
 * leaf moves from the end of `from` to the end of `to`. Pure.
 */
export function abandonedEntries(from: readonly Entry[], to: readonly Entry[]): Entry[] {
  let common = 0;
  while (common < from.length && common < to.length && from[common]!.id === to[common]!.id) common++;
  return from.slice(common);
}

/**
 * What the model saw of the abandoned part of `from`: its context items (messages, summaries) whose
 * entries are not on `to`. Pure.
 */
export function abandonedMessages(from: readonly Entry[], to: readonly Entry[]): Message[] {
  const left = new Set(abandonedEntries(from, to).map((e) => e.id));
  if (left.size === 0) return [];
  const state = buildContext(from);
  const out: Message[] = [];
  for (let i = 0; i < state.length; i++) {
    const item = state.items[i]!;
    if (left.has(item.entryId)) out.push(item.message);
  }
  return out;
}

export interface BranchSummaryInput {
  store: Store;
  sessionId: string;
  /** The active path before the move, and the path to the new leaf. */
  from: readonly Entry[];
  to: readonly Entry[];
  summarizer: Summarizer;
  focus?: string;
}

/**
 * Moves the leaf to the end of `to` (persisted, so a later process continues there), first summarizing the branch it leaves when
 * that branch holds any messages; the `branch_summary` is appended under the new leaf, so continuing
 * there sends it to the model as a system reminder. A summarizer failure throws before the leaf moves.
 */
export async function switchWithSummary(input: BranchSummaryInput): Promise<BranchSummaryEntry | undefined> {
  const target = input.to.at(-1);
  const fromLeaf = input.from.at(-1);
  const messages = abandonedMessages(input.from, input.to);
  let text: string | undefined;
  if (messages.length > 0 && fromLeaf) {
    text = await input.summarizer.summarize(messages, (conversation, prev) =>
      prev
        ? `${branchSummaryRequest(conversation, input.focus)}\n\nFold in this summary of the branch's earlier part:\n${prev}`
        : branchSummaryRequest(conversation, input.focus),
    );
  }
  if (target) await input.store.switchLeaf(input.sessionId, target.id);
  else await input.store.resetLeaf(input.sessionId);
  if (text === undefined || !fromLeaf) return undefined;
  const files = fileOps(messages);
  return (await input.store.appendBranchSummary(input.sessionId, {
    fromId: fromLeaf.id,
    summary: withFileLists(text, files),
    details: {
      model: input.summarizer.model,
      files,
      ...(input.focus ? { focus: input.focus } : {}),
      usage: input.summarizer.usage,
    },
  })) as BranchSummaryEntry;
}

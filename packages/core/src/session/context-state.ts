import type { ThinkingLevel } from "../model/entry.js";
import type { Message } from "../model/message.js";

/** A note waiting for the first message of a replacement goal, so the model learns why the plan changed. */
export interface CarriedNote {
  readonly goalIds: readonly string[];
  readonly text: string;
}

/** One message the model sees, with the entry it came from. */
export interface ContextItem {
  readonly entryId: string;
  readonly message: Message;
  /** Set on the summary a compaction puts first: its text as written, so a later compaction can update it. */
  readonly compaction?: { readonly summary: string; readonly details?: unknown };
}

/**
 * What the model sees at one point of a path. `items` is a buffer shared between successive
 * states and `length` is this state's view of it, so appending one entry is O(1): the buffer is
 * extended in place when this state owns its end and copied only when an older state is extended
 * (a branch). Old states stay valid because nothing below their `length` is ever written.
 */
export interface ContextState {
  readonly items: ContextItem[];
  readonly length: number;
  readonly thinkingLevel: ThinkingLevel | null;
  readonly model: string | null;
  /** The last entry applied; the next entry's parent if the state follows a path. */
  readonly leafId: string | null;
  /**
   * Items below this index were rewritten (by a compaction or a prune) after they were first sent,
   * so token usage a provider reported for a message below it no longer measures this context.
   */
  readonly rewrittenAt: number;
  /** Notes abandoned goals left for the first message of the goals that replace them. */
  readonly carry?: readonly CarriedNote[];
  /** Tool calls of the last assistant message that have no result yet. */
  readonly openCalls?: readonly OpenCall[];
}

export interface OpenCall {
  readonly toolCallId: string;
  readonly toolName: string;
}

/** The result a model sees for a tool call that never got one: its run stopped (a crash, a kill) first. */
export const INTERRUPTED_OUTPUT = "[Tool execution was interrupted]";
/**
 * The result of a call whose run stopped while it waited for a person to allow it (no one could
 * answer, or the run was aborted then): it did not run, and nobody refused it, so calling it again
 * is fine; a rule approved meanwhile lets it through.
 */
export const PERMISSION_UNANSWERED_OUTPUT =
  "[Not run: the run stopped while this call waited for permission, before anyone allowed or refused it. Nothing was done; call it again to carry on.]";

export const EMPTY_CONTEXT: ContextState = Object.freeze({
  items: [],
  length: 0,
  thinkingLevel: null,
  model: null,
  leafId: null,
  rewrittenAt: 0,
}) as ContextState;

export function emptyContext(): ContextState {
  return { items: [], length: 0, thinkingLevel: null, model: null, leafId: null, rewrittenAt: 0 };
}

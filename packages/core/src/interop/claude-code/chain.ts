import type { Entry } from "../../model/entry.js";
import type { Message } from "../../model/message.js";
import type { SessionBuilder } from "../build.js";
import { importedEntryId } from "../ids.js";
import { isoTime } from "../time.js";
import { addSkip } from "../types.js";
import { assistantBody, type ClaudeContext, userBodies, userText } from "./messages.js";
import type { ClaudeLine, ClaudeUserLine } from "./schema.js";

/**
 * Lays Claude Code lines into one session's tree. Claude Code writes one model response as several
 * lines (one per content block, sharing `message.id`) and hangs each tool result on the line of its
 * own call, so parallel calls look like forks, and a result may be written between two calls of one
 * response. Here a response is one assistant message, and the results of one response follow it one
 * after the other, the next turn continuing from the last: only a real fork (a rewind, an edited
 * prompt) stays a branch.
 */
export class ClaudeChain {
  /** The assistant entry of each response seen. */
  private readonly byMessageId = new Map<string, Extract<Entry, { type: "message" }>>();
  /** A tool-result entry → its group (the assistant entry whose calls it answers). */
  private readonly groupOf = new Map<string, string>();
  /** A group → its last result so far: where the next result and the next turn hang. */
  private readonly groupTail = new Map<string, string>();

  constructor(
    private readonly b: SessionBuilder,
    private readonly ctx: ClaudeContext,
    /** Compaction boundary uuid → the user line holding its summary. */
    private readonly summaries: ReadonlyMap<string, ClaudeUserLine> = new Map(),
  ) {}

  /** Where a line hung on `sourceParent` goes: through skipped lines, then to the tail of a result group. */
  private parent(sourceParent: string | null): string | null {
    const r = this.b.resolve(sourceParent);
    if (r === undefined || r === null) return sourceParent;
    const group = this.groupOf.get(r);
    return group === undefined ? r : (this.groupTail.get(group) ?? r);
  }

  /** Adds one line; returns the id of the entry it made or joined (the candidate leaf), if any. */
  add(c: ClaudeLine): string | undefined {
    const id = importedEntryId(c.uuid);
    const at = isoTime(c.timestamp);
    const sourceParent = c.parentUuid ? importedEntryId(c.parentUuid) : null;
    switch (c.type) {
      case "assistant":
        return this.assistant(c, id, this.parent(sourceParent), at);
      case "user": {
        if (c.isCompactSummary && c.parentUuid && this.summaries.get(c.parentUuid) === c) {
          this.b.bridge(id, sourceParent);
          return undefined;
        }
        let parent = this.parent(sourceParent);
        let last: string | undefined;
        for (const [n, body] of userBodies(c, this.ctx).entries()) {
          const isResult = body.type === "message" && (body as { message: Message }).message.role === "tool";
          const group = isResult ? this.groupFor(parent) : undefined;
          if (group !== undefined) parent = this.groupTail.get(group) ?? parent;
          last = this.b.add(n === 0 ? id : this.b.uniqueId(`${id.slice(0, 60)}-u`), parent, at, body).id;
          if (group !== undefined) {
            this.groupOf.set(last, group);
            this.groupTail.set(group, last);
          }
          parent = last;
        }
        return last;
      }
      case "system": {
        if (c.subtype !== "compact_boundary") {
          addSkip(this.ctx.skipped, `system line "${c.subtype ?? "?"}" (status shown by the CLI)`);
          this.b.bridge(id, sourceParent);
          return undefined;
        }
        const summary = this.summaries.get(c.uuid);
        const parent = c.logicalParentUuid ? this.parent(importedEntryId(c.logicalParentUuid)) : this.parent(sourceParent);
        return this.b.add(id, parent, at, {
          type: "compaction",
          summary: summary ? userText(summary) : (c.content ?? ""),
          firstKeptEntryId: null,
          tokensBefore: Math.max(0, Math.round(c.compactMetadata?.preTokens ?? 0)),
          details: { trigger: c.compactMetadata?.trigger },
        }).id;
      }
    }
  }

  /** The result group a tool result under `parent` joins: its own assistant's, or the group `parent` is in. */
  private groupFor(parent: string | null): string | undefined {
    if (parent === null) return undefined;
    const inGroup = this.groupOf.get(parent);
    if (inGroup !== undefined) return inGroup;
    return this.b.has(parent) ? parent : undefined;
  }

  private assistant(
    c: Extract<ClaudeLine, { type: "assistant" }>,
    id: string,
    parent: string | null,
    at: string | undefined,
  ): string {
    const body = assistantBody(c, this.ctx);
    const mid = c.message.id;
    const previous = mid === undefined ? undefined : this.byMessageId.get(mid);
    // The next block of the same response joins the message instead of starting a turn, also when
    // the result of an earlier call of the response was written before it (tools run while the
    // response streams).
    const continues =
      previous !== undefined && parent !== null && (previous.id === parent || this.groupOf.get(parent) === previous.id);
    if (previous && continues && body.type === "message") {
      const more = body.message as Message & { role: "assistant" };
      const into = previous.message as Message & { role: "assistant" };
      into.content.push(...more.content);
      if (more.finishReason) into.finishReason = more.finishReason;
      this.b.bridge(id, previous.id);
      return previous.id;
    }
    const entry = this.b.add(id, parent, at, body);
    if (mid !== undefined && entry.type === "message") this.byMessageId.set(mid, entry);
    return entry.id;
  }
}

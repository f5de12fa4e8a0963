import type { Entry } from "../../src/model/entry.js";
import type { Message } from "../../src/model/message.js";

const TS = "2026-01-01T00:00:00.000Z";

/** Builds entry chains for context tests: each entry's parent is the previous one unless given. */
export class Chain {
  private n = 0;
  readonly entries: Entry[] = [];
  constructor(private readonly prefix = "e") {}

  private add(fields: Record<string, unknown>, parentId?: string | null): Entry {
    const entry = {
      id: `${this.prefix}${++this.n}`,
      parentId: parentId === undefined ? (this.entries.at(-1)?.id ?? null) : parentId,
      timestamp: TS,
      ...fields,
    } as Entry;
    this.entries.push(entry);
    return entry;
  }

  message(message: Message, parentId?: string | null): Entry {
    return this.add({ type: "message", message }, parentId);
  }
  user(text: string, parentId?: string | null): Entry {
    return this.message({ role: "user", content: [{ type: "text", text }] }, parentId);
  }
  assistant(text: string, parentId?: string | null): Entry {
    return this.message({ role: "assistant", content: [{ type: "text", text }] }, parentId);
  }
  /** An assistant message calling `tool` once per id. */
  call(ids: string[], tool = "read", parentId?: string | null): Entry {
    return this.message(
      {
        role: "assistant",
        content: ids.map((id) => ({ type: "tool-call" as const, toolCallId: id, toolName: tool, input: { path: `${id}.ts` } })),
      },
      parentId,
    );
  }
  result(id: string, output: string, tool = "read", parentId?: string | null): Entry {
    return this.message(
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: id, toolName: tool, output: { type: "text", value: output } }],
      },
      parentId,
    );
  }
  compaction(summary: string, firstKeptEntryId: string | null, parentId?: string | null): Entry {
    return this.add({ type: "compaction", summary, firstKeptEntryId, tokensBefore: 0 }, parentId);
  }
  prune(toolCallIds: string[], parentId?: string | null): Entry {
    return this.add({ type: "custom", customType: "arbor.prune", data: { toolCallIds } }, parentId);
  }
}

/** A count that treats each character as a token, so budgets in tests read as lengths. */
export function charCount(message: Message): number {
  let n = 0;
  for (const part of message.content) {
    if (part.type === "text" || part.type === "reasoning") n += part.text.length;
    else if (part.type === "tool-result") n += part.output.type === "text" ? part.output.value.length : 10;
    else if (part.type === "tool-call") n += 10;
  }
  return n;
}

export function outputs(messages: readonly Message[]): string[] {
  return messages.flatMap((m) =>
    m.role === "tool" ? m.content.map((p) => (p.output.type === "text" ? p.output.value : "")) : [],
  );
}

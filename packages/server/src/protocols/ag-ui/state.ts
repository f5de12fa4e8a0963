import { type BaseEvent, EventType, type Message } from "@ag-ui/core";
import type { Entry } from "@arbor/core";
import { goalTreeOnPath, todosOnPath } from "@arbor/core/session";
import { goalTreeToWire } from "@arbor/core/wire";
// A CommonJS package: Node gives its functions only through the default export.
import jsonPatch from "fast-json-patch";

/**
 * The shared state an AG-UI front end renders beside the chat: the session's goal tree (as the
 * trace API shapes it) and its todo list, both as the active path has them.
 */
export interface AgUiSessionState {
  goals: ReturnType<typeof goalTreeToWire> | null;
  todos: ReturnType<typeof todosOnPath>;
}

export function stateOfPath(path: readonly Entry[]): AgUiSessionState {
  const tree = goalTreeOnPath(path);
  return { goals: tree ? goalTreeToWire(tree) : null, todos: todosOnPath(path) };
}

const textOf = (parts: ReadonlyArray<{ type: string; text?: unknown }>) =>
  parts
    .filter((p) => p.type === "text")
    .map((p) => String(p.text ?? ""))
    .join("\n");

/**
 * The path's conversation as AG-UI messages, each with its entry's id (a tool result: the entry's
 * id and its call's), so a client that replaces its list with this snapshot can name any message in
 * a later run's `parentRunId`. System messages and Arbor's own records are not conversation.
 */
export function messagesOfPath(path: readonly Entry[]): Message[] {
  const out: Message[] = [];
  for (const entry of path) {
    if (entry.type !== "message") continue;
    const m = entry.message;
    if (m.role === "user") out.push({ id: entry.id, role: "user", content: textOf(m.content) } as Message);
    else if (m.role === "assistant") {
      const toolCalls = m.content.flatMap((p) =>
        p.type === "tool-call"
          ? [
              {
                id: p.toolCallId,
                type: "function" as const,
                function: { name: p.toolName, arguments: JSON.stringify(p.input ?? {}) },
              },
            ]
          : [],
      );
      out.push({
        id: entry.id,
        role: "assistant",
        content: textOf(m.content),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      } as Message);
    } else if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type !== "tool-result") continue;
        const output = p.output;
        const content = output.type === "text" || output.type === "error-text" ? output.value : JSON.stringify(output.value);
        out.push({ id: `${entry.id}:${p.toolCallId}`, role: "tool", toolCallId: p.toolCallId, content } as Message);
      }
    }
  }
  return out;
}

/**
 * One AG-UI run's view of the session's state: a STATE_SNAPSHOT when it starts, a STATE_DELTA (JSON
 * Patch, RFC 6902) whenever a step changed the goals or todos, and the conversation as a
 * MESSAGES_SNAPSHOT when it finishes. A step's state is read from the session's active path up to
 * the entry its `llm_start` names (`leaf_id`), never from the path as it is when the event is read:
 * the run goes on while its events reach the stream, so the store is often steps ahead of them.
 * Nothing is kept beyond this stream.
 */
export class AgUiState {
  private last: AgUiSessionState | undefined;

  constructor(private readonly path: () => Promise<Entry[]>) {}

  async snapshot(): Promise<BaseEvent[]> {
    this.last = stateOfPath(await this.path());
    return [{ type: EventType.STATE_SNAPSHOT, snapshot: this.last } as BaseEvent];
  }

  /**
   * A delta when the state at `leafId` (an entry of the active path; the path's end without one)
   * moved since the last one sent; nothing otherwise, nor for an entry no longer on the path.
   */
  async delta(leafId?: string): Promise<BaseEvent[]> {
    const path = await this.path();
    const end = leafId === undefined ? path.length : path.findIndex((e) => e.id === leafId) + 1;
    return end === 0 ? [] : this.deltaTo(stateOfPath(path.slice(0, end)));
  }

  private deltaTo(now: AgUiSessionState): BaseEvent[] {
    if (this.last === undefined) {
      this.last = now;
      return [{ type: EventType.STATE_SNAPSHOT, snapshot: now } as BaseEvent];
    }
    const ops = jsonPatch.compare(this.last, now);
    this.last = now;
    return ops.length === 0 ? [] : [{ type: EventType.STATE_DELTA, delta: ops } as BaseEvent];
  }

  /** The last state delta and the whole conversation, for the end of the run. */
  async finish(): Promise<BaseEvent[]> {
    const path = await this.path();
    return [
      ...this.deltaTo(stateOfPath(path)),
      { type: EventType.MESSAGES_SNAPSHOT, messages: messagesOfPath(path) } as BaseEvent,
    ];
  }
}

import { type AgentApp, RequestError } from "@agentclientprotocol/sdk";
import { ArborError, type Entry, type Runtime, type Store } from "@arbor/core";
import { assertEntryId, assertSessionId } from "@arbor/core/wire";
import { z } from "zod";
import type { ProtocolRuntime } from "../shared/runs.js";
import { answering } from "./errors.js";
import type { AcpConnectionState, AcpSession } from "./prompt-turn.js";

/** Arbor's session tree over ACP, beyond the protocol's own session methods; advertised in `initialize`. */
export const ARBOR_EXT_METHODS = ["_arbor/entries", "_arbor/fork", "_arbor/continue_from_entry"] as const;

const SessionParams = z.strictObject({ sessionId: z.string().min(1) });
const ForkParams = z.strictObject({
  sessionId: z.string().min(1),
  /** Default: the session's leaf (a copy of the whole conversation). */
  entryId: z.string().min(1).optional(),
  /** The new session's folder on this connection; default the forked one's. */
  cwd: z.string().min(1).optional(),
});
const ContinueParams = z.strictObject({ sessionId: z.string().min(1), entryId: z.string().min(1) });

interface ExtDeps {
  runtime: Runtime;
  store: Store;
  state: AcpConnectionState;
  /** Opens a stored session on this connection, its prompts run by `runs` (a fork: the forked session's). */
  open(sessionId: string, cwd: string, runs: ProtocolRuntime | undefined): Promise<AcpSession>;
}

/** One entry of a session's active path as a client lists it to pick where to fork or continue. */
function entrySummary(entry: Entry): { entryId: string; parentId: string | null; kind: string; text?: string } {
  const base = { entryId: entry.id, parentId: entry.parentId };
  if (entry.type !== "message") return { ...base, kind: entry.type };
  const text = entry.message.content
    .map((part) => (part.type === "text" ? part.text : part.type === "tool-call" ? `[${part.toolName}]` : ""))
    .filter((t) => t !== "")
    .join(" ");
  return { ...base, kind: entry.message.role, ...(text === "" ? {} : { text: text.slice(0, 500) }) };
}

/**
 * `_arbor/entries` lists a session's active path; `_arbor/fork` makes a new session of the path
 * up to an entry (the original is unchanged) and opens it on this connection; `_arbor/continue_from_entry`
 * makes the session's next prompt continue from an entry, on a new branch. Each checks its input
 * before changing anything.
 */
export function registerArborMethods(app: AgentApp, { runtime, store, state, open }: ExtDeps): AgentApp {
  const existing = async (sessionId: string) => {
    assertSessionId(sessionId);
    const meta = await store.getSession(sessionId);
    if (meta === undefined) throw RequestError.sessionNotFound(sessionId);
    return meta;
  };
  return app
    .onRequest("_arbor/entries", SessionParams, ({ params }) =>
      answering(async () => {
        await existing(params.sessionId);
        return { entries: (await store.getActivePath(params.sessionId)).map(entrySummary) };
      }),
    )
    .onRequest("_arbor/fork", ForkParams, ({ params }) =>
      answering(async () => {
        const meta = await existing(params.sessionId);
        const entryId = params.entryId ?? meta.leafEntryId;
        if (entryId === null) {
          throw new ArborError("invalid_input", `Session ${params.sessionId} has no entries yet: there is nothing to fork.`);
        }
        assertEntryId(entryId);
        const forked = await runtime.sessions.fork(params.sessionId, entryId);
        const from = state.sessions.get(params.sessionId);
        const cwd = params.cwd ?? from?.cwd ?? forked.cwd ?? meta.cwd ?? "/";
        const session = await open(forked.id, cwd, from?.runs);
        return { sessionId: session.id };
      }),
    )
    .onRequest("_arbor/continue_from_entry", ContinueParams, ({ params }) =>
      answering(async () => {
        const session = state.sessions.get(params.sessionId);
        if (session === undefined) throw RequestError.sessionNotFound(params.sessionId);
        await existing(params.sessionId);
        assertEntryId(params.entryId);
        if (!(await store.getEntry(params.sessionId, params.entryId))) {
          throw new ArborError(
            "entry_not_found",
            `Entry ${params.entryId} is not in session ${params.sessionId}; _arbor/entries lists them.`,
          );
        }
        session.fromEntryId = params.entryId;
        return {};
      }),
    );
}

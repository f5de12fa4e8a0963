import { ArborError } from "../errors.js";
import type { RunEventLog } from "../events/run-event-log.js";
import type { RunDeps } from "../loop/run-deps.js";
import { assertSessionId } from "../model/ids.js";
import { DELETE_ENTRY_TYPE } from "../session/delete-entry.js";
import { revertSession, unrevertSession } from "../snapshot/revert.js";
import { sessionDiff } from "../snapshot/session-diff.js";
import { steerSession } from "../steering/steering.js";
import type { Store } from "../store/store.js";
import { messageTrace } from "../trace/message-trace.js";
import { compactSession, switchSessionLeaf } from "./session-context.js";
import type { SessionSlot } from "./session-slot.js";
import type { RuntimeSessions } from "./sessions-api.js";

export interface SessionMethodDeps {
  store: Store;
  slot: SessionSlot;
  /** The runs' dependencies (models, tokens), for compaction and branch summaries. */
  runDeps: () => RunDeps;
  /** `$ARBOR_HOME`, where the snapshot histories are. */
  home: string;
  /** The recorded run streams: a deleted session's go with it. */
  events: RunEventLog;
}

/**
 * `runtime.sessions`. Each operation that writes an existing session runs in its slot (see
 * session-slot.ts), and reads what it depends on inside it: a label's target, the message to
 * delete, the path to revert are read after the lease is taken, so no run writes between the check
 * and the write. Creating, forking and importing write only a new session and need no slot.
 */
export function sessionMethods(deps: SessionMethodDeps): RuntimeSessions {
  const { store, slot, home } = deps;
  return {
    create: (init) => store.createSession(init),
    // The inbox is the one thing any process may write while another drives the session.
    steer: (sessionId, text) => steerSession(store, slot.busy, sessionId, text),
    label: (sessionId, entryId, label, options = {}) =>
      slot.exclusive(sessionId, options.busy, async () => {
        if (!(await store.getEntry(sessionId, entryId))) {
          throw new ArborError("entry_not_found", `Entry ${entryId} does not exist in session ${sessionId}.`);
        }
        return store.appendLabelChange(sessionId, entryId, label);
      }),
    switchLeaf: (sessionId, entryId, options = {}) =>
      slot.exclusive(sessionId, options.busy, () => switchSessionLeaf(deps.runDeps(), sessionId, entryId, options)),
    async fork(sessionId, entryId) {
      assertSessionId(sessionId);
      return store.createBranchedSession(sessionId, entryId);
    },
    // The store refuses to delete a tree any of whose sessions is leased, in the delete's own
    // transaction: taking the lease here would refuse our own delete.
    delete: (sessionId, options = {}) =>
      slot.queued(sessionId, options.busy, async () => {
        await store.deleteSession(sessionId);
        deps.events.drop(sessionId);
      }),
    deleteMessage: (sessionId, messageId, options = {}) =>
      slot.exclusive(sessionId, options.busy, async () => {
        const message = messageTrace(sessionId, await store.getActivePath(sessionId)).find((m) => m.id === messageId);
        if (!message) {
          throw new ArborError(
            "message_not_found",
            `No message ${messageId} on the active path of session ${sessionId}; the session's message trace lists them.`,
          );
        }
        return store.appendEntry(sessionId, {
          type: "custom",
          customType: DELETE_ENTRY_TYPE,
          data: { entryIds: message.entryIds, messageId: message.id },
        });
      }),
    import: (data, options = {}) => store.importSession(data, options),
    compact: (sessionId, options = {}) =>
      slot.exclusive(sessionId, options.busy, () => compactSession(deps.runDeps(), sessionId, options)),
    revert: (sessionId, to, options = {}) =>
      slot.exclusive(sessionId, options.busy, () =>
        revertSession({ store, sessionId, home, ...(to === undefined ? {} : { to }) }),
      ),
    unrevert: (sessionId, options = {}) =>
      slot.exclusive(sessionId, options.busy, () => unrevertSession({ store, sessionId, home })),
    async diff(sessionId) {
      assertSessionId(sessionId);
      return sessionDiff({ store, sessionId, home });
    },
  };
}

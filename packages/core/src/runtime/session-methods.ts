import type { Principal, Scope } from "../auth/principal.js";
import { ArborError } from "../errors.js";
import type { RunEventLog } from "../events/run-event-log.js";
import type { RunDeps } from "../loop/run-deps.js";
import { assertSessionId } from "../model/ids.js";
import type { RevertOptions } from "../snapshot/revert-path.js";
import type { Store } from "../store/store.js";
import type { BlobStore } from "../tools/blob-store.js";
import type { RuntimeAccess } from "./access.js";
import { compactSession, summarizeSessionNow, switchSessionLeaf } from "./session-context.js";
import type { SessionSlot } from "./session-slot.js";
import type { RevertTarget, RuntimeSessions } from "./sessions-api.js";

export interface SessionMethodDeps {
  store: Store;
  slot: SessionSlot;
  /** The runs' dependencies (models, tokens), for compaction and branch summaries. */
  runDeps: () => RunDeps;
  /** `$ARBOR_HOME`, where the snapshot histories are. */
  home: string;
  /** The recorded run streams: a deleted session's go with it. */
  events: RunEventLog;
  /** Who may do what: each operation given a principal checks it first. */
  access: RuntimeAccess;
  /** Saved tool outputs: a deleted message's are erased with it. */
  blobs?: BlobStore;
  /** Empties the LLM response cache (a deleted message may be in a recorded answer). */
  clearCache?: () => Promise<unknown>;
}

/**
 * `runtime.sessions`. Each operation that writes an existing session runs in its slot (see
 * session-slot.ts), and reads what it depends on inside it: a label's target, the message to
 * delete, the path to revert are read after the lease is taken, so no run writes between the check
 * and the write. Creating, forking and importing write only a new session and need no slot.
 * Steering, erasing a message, reverting, undoing a revert and the diff load their modules when first
 * called: a process that makes a runtime for one run (`arbor run`) never needs them.
 */
export function sessionMethods(deps: SessionMethodDeps): RuntimeSessions {
  const { store, slot, home, access } = deps;
  /** The door's check, before the slot: a refused principal waits for nothing and changes nothing. */
  const check = async (options: { principal?: Principal }, sessionId: string, scope: Scope, what: string) => {
    if (options.principal) await access.session(options.principal, sessionId, scope, what);
  };
  return {
    async create(init = {}, options = {}) {
      const { principal } = options;
      if (!principal) return store.createSession(init);
      access.require(principal, "run", "Creating a session");
      const cwd = access.workspace(principal, init.cwd, "Creating a session");
      return store.createSession({ ...init, ...(cwd === undefined ? {} : { cwd }), createdBy: principal.id });
    },
    // The inbox is the one thing any process may write while another drives the session.
    async steer(sessionId, text, options = {}) {
      await check(options, sessionId, "run", "Steering a session");
      const { steerSession } = await import("../steering/steering.js");
      return steerSession(store, slot.busy, sessionId, text);
    },
    label: async (sessionId, entryId, label, options = {}) =>
      check(options, sessionId, "run", "Labelling an entry").then(() =>
        slot.exclusive(sessionId, options.busy, async () => {
          if (!(await store.getEntry(sessionId, entryId))) {
            throw new ArborError("entry_not_found", `Entry ${entryId} does not exist in session ${sessionId}.`);
          }
          return store.appendLabelChange(sessionId, entryId, label);
        }),
      ),
    switchLeaf: (sessionId, entryId, options = {}) =>
      check(options, sessionId, "run", "Moving the leaf").then(() =>
        slot.exclusive(sessionId, options.busy, () => switchSessionLeaf(deps.runDeps(), sessionId, entryId, options)),
      ),
    async fork(sessionId, entryId, options = {}) {
      assertSessionId(sessionId);
      await check(options, sessionId, "run", "Forking a session");
      const by = options.principal?.id;
      return store.createBranchedSession(sessionId, entryId, by === undefined ? undefined : { createdBy: by });
    },
    // The store refuses to delete a tree any of whose sessions is leased, in the delete's own
    // transaction: taking the lease here would refuse our own delete.
    delete: (sessionId, options = {}) =>
      check(options, sessionId, "admin", "Deleting a session").then(() =>
        slot.queued(sessionId, options.busy, async () => {
          await store.deleteSession(sessionId);
          deps.events.drop(sessionId);
        }),
      ),
    deleteMessage: (sessionId, messageId, options = {}) =>
      check(options, sessionId, "admin", "Deleting a message").then(() =>
        slot.exclusive(sessionId, options.busy, async () => {
          const erase = {
            store,
            ...(deps.blobs ? { blobs: deps.blobs } : {}),
            ...(deps.clearCache ? { clearCache: deps.clearCache } : {}),
          };
          const { eraseMessage } = await import("./erase-message.js");
          const { entry } = await eraseMessage(erase, sessionId, messageId);
          // The replay tails kept in memory held what the blanked records said.
          deps.events.drop(sessionId);
          return entry;
        }),
      ),
    import: (data, options = {}) => {
      access.require(options.principal, "admin", "Importing a session");
      return store.importSession(data, options.newId === undefined ? {} : { newId: options.newId });
    },
    compact: (sessionId, options = {}) =>
      check(options, sessionId, "run", "Compacting a session").then(() =>
        slot.exclusive(sessionId, options.busy, () => compactSession(deps.runDeps(), sessionId, options)),
      ),
    // Reads only: no slot, so a session being run can be summarized.
    summary: (sessionId, options = {}) =>
      check(options, sessionId, "run", "Summarizing a session").then(() =>
        summarizeSessionNow(deps.runDeps(), sessionId, options),
      ),
    revert: (sessionId, to, options = {}) =>
      check(options, sessionId, "admin", "Reverting a session").then(() =>
        slot.exclusive(sessionId, options.busy, async () => {
          const { revertSession } = await import("../snapshot/revert.js");
          return revertSession({ store, sessionId, home, ...revertTarget(to) });
        }),
      ),
    unrevert: (sessionId, options = {}) =>
      check(options, sessionId, "admin", "Undoing a revert").then(() =>
        slot.exclusive(sessionId, options.busy, async () => {
          const { unrevertSession } = await import("../snapshot/unrevert.js");
          return unrevertSession({ store, sessionId, home });
        }),
      ),
    async diff(sessionId) {
      assertSessionId(sessionId);
      const { sessionDiff } = await import("../snapshot/session-diff.js");
      return sessionDiff({ store, sessionId, home });
    },
  };
}

/** `runtime.sessions.revert`'s target: an entry id (the session from there on) or what to take back alone. */
function revertTarget(to: string | RevertTarget | undefined): Pick<RevertOptions, "to" | "file" | "step"> {
  if (to === undefined) return {};
  if (typeof to === "string") return { to };
  return {
    ...(to.to === undefined ? {} : { to: to.to }),
    ...(to.file === undefined ? {} : { file: to.file }),
    ...(to.step === undefined ? {} : { step: to.step }),
  };
}

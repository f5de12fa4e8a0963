import { randomUUID } from "node:crypto";
import { ArborError } from "../errors.js";
import { assertSessionId } from "../model/ids.js";
import type { SessionInit } from "../model/session.js";
import type { SqlExecutor, Store } from "../store/store.js";

/** The record a queued prompt leaves in its session's event log, where readers start following its run. */
export const RUN_QUEUED_EVENT = "chat_queued";

/** `runtime.runs.queue`: a prompt handed to a queue that runs it wherever a worker takes it. */
export interface QueueRunInput {
  message: string;
  /** The session to continue; without it a new session is created with the record. */
  sessionId?: string;
  /** Without `sessionId`: the id the new session is created with (a client that names its chat); default a random one. */
  newSessionId?: string;
  /** For a new session: its workspace and agent. */
  create?: Pick<SessionInit, "cwd" | "agentId" | "createdBy">;
  /** Who queued it (an instance name), kept on the record. */
  instance: string;
}

/** A queued prompt: its session, its key (the run's `requestKey`) and the record's id, after which its run's events come. */
export interface QueuedRun {
  sessionId: string;
  key: string;
  after: number;
}

/**
 * Records a prompt in its session's event log and hands it to a queue in one transaction: `enqueue`
 * runs over the same SQL executor as the record, so both commit or neither does (a crash between
 * them would leave a record nobody runs, or a job whose readers start nowhere). A new session is
 * created in the same transaction. Needs a store that can append within a caller's transaction (the
 * SQL stores); others are refused with `invalid_input`, having written nothing.
 */
export async function queueRun(
  store: Store,
  input: QueueRunInput,
  enqueue: (job: { sessionId: string; key: string }, sql: SqlExecutor) => Promise<void>,
): Promise<QueuedRun> {
  const append = store.appendEventsWithin?.bind(store);
  if (!append) {
    throw new ArborError(
      "invalid_input",
      "Queueing a run needs a store that records it and its job in one transaction: use a PostgreSQL store.",
    );
  }
  if (input.sessionId !== undefined) assertSessionId(input.sessionId);
  if (input.newSessionId !== undefined) assertSessionId(input.newSessionId);
  const sessionId = input.sessionId ?? input.newSessionId ?? randomUUID();
  const key = randomUUID();
  const create: SessionInit | undefined =
    input.sessionId === undefined
      ? {
          cwd: input.create?.cwd ?? process.cwd(),
          agentId: input.create?.agentId ?? "build",
          mode: "agent",
          ...(input.create?.createdBy === undefined ? {} : { createdBy: input.create.createdBy }),
        }
      : undefined;
  const [record] = await append(
    sessionId,
    [{ type: RUN_QUEUED_EVENT, data: { key, message: input.message, instance: input.instance } }],
    (sql) => enqueue({ sessionId, key }, sql),
    create,
  );
  return { sessionId, key, after: record?.id ?? 0 };
}

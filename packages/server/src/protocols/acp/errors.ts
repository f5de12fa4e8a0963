import { RequestError } from "@agentclientprotocol/sdk";
import { isArborError } from "@arbor/core";
import { ApiError } from "../../errors.js";

/** Arbor codes that name something missing: ACP's "resource not found". */
const NOT_FOUND = new Set(["session_not_found", "entry_not_found", "message_not_found", "plan_not_found", "ask_not_found"]);
/** Arbor codes for a request the client can fix: ACP's "invalid params". */
const INVALID = new Set(["invalid_id", "invalid_input", "invalid_model", "invalid_cursor"]);

/**
 * An Arbor failure as the JSON-RPC error an ACP client reads: the code says what kind it is, the
 * message what to do, and `data.code` Arbor's own code for clients that branch on it. Anything else
 * is left to the SDK, which answers it as an internal error.
 */
export function toRequestError(err: unknown): unknown {
  if (err instanceof RequestError) return err;
  const known = isArborError(err) || err instanceof ApiError ? (err as Error & { code: string }) : undefined;
  return known === undefined ? err : requestErrorFor(known.code, known.message);
}

/** The ACP error for an Arbor error code and its message. */
export function requestErrorFor(code: string, message: string): RequestError {
  const rpcCode = NOT_FOUND.has(code) ? -32002 : INVALID.has(code) ? -32602 : -32603;
  return new RequestError(rpcCode, message, { code });
}

/** Runs a handler with its Arbor errors answered as ACP errors. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toRequestError(err);
  }
}

import { APICallError } from "@ai-sdk/provider";
import type { PlannedError } from "./plan.js";

/** A call arrived after the last scripted step: a test bug, so it fails loudly and is never retryable. */
export class ScriptExhaustedError extends Error {
  override readonly name = "ScriptExhaustedError";
  constructor(
    readonly source: string,
    readonly callIndex: number,
    readonly steps: number,
  ) {
    super(`${source}: call #${callIndex + 1} but the script has only ${steps} step${steps === 1 ? "" : "s"}`);
  }
}

/** The JSON body OpenAI answers an error with; the fake server sends it and the scripted model reports it. */
export function openAIErrorBody(error: PlannedError): {
  error: { message: string; type: string; param: null; code: string | null };
} {
  return { error: { message: error.message, type: error.errorType, param: null, code: error.code } };
}

/**
 * What a real provider call surfaces for this error through the AI SDK: an APICallError with the status, the
 * response headers (so `retry-after` is read the same way) and the AI SDK's own retryability rule.
 */
export function toAPICallError(error: PlannedError, url: string, requestBodyValues: unknown): APICallError {
  const body = openAIErrorBody(error);
  return new APICallError({
    message: error.message,
    url,
    requestBodyValues,
    statusCode: error.status,
    responseHeaders: { "content-type": "application/json", ...error.headers },
    responseBody: JSON.stringify(body),
    data: body,
  });
}

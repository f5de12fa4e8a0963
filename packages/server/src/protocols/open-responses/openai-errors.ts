import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, type ApiErrorCode, toApiError } from "../../errors.js";
import { readJsonBody } from "../../http/body.js";
import type { Route, RouteSpec } from "../../http/route.js";

/** A client error that names the request parameter at fault, as OpenAI's error bodies do. */
export class ParamError extends ApiError {
  constructor(
    code: ApiErrorCode,
    message: string,
    readonly param: string,
  ) {
    super(code, message);
  }
}

/** OpenAI's error `type` for a status. */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 409) return "conflict_error";
  return "invalid_request_error";
}

/**
 * A client error as the official clients read it: `{error: {message, type, param, code}}`, with
 * Arbor's code as `code`. Server failures (5xx) are left to the server's own handler, which logs them.
 */
export function openAiError(err: unknown): Response {
  const { status, body } = toApiError(err);
  if (status >= 500) throw err;
  const param = err instanceof ParamError ? err.param : null;
  return Response.json(
    { error: { message: body.error.message, type: typeOf(status), param, code: body.error.code } },
    { status },
  );
}

/** `issue.path` as OpenAI names a parameter: `input[0].call_id`. */
function paramOf(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

/** `value` parsed with `schema`, or a ParamError naming the first parameter at fault. */
export function parseParam<S extends z.ZodType>(schema: S, value: unknown, prefix = ""): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = prefix + paramOf(issue?.path ?? []);
  throw new ParamError(
    "invalid_input",
    `Invalid ${param === "" ? "request body" : param}: ${issue?.message ?? "not valid"}.`,
    param,
  );
}

/** A described route (in the OpenAPI document, behind the token) whose every client error is OpenAI-shaped. */
export function openAiRoute(spec: RouteSpec, handle: (c: Context, body: () => Promise<unknown>) => Promise<Response>): Route {
  return {
    spec,
    async handle(c, maxBodyBytes) {
      try {
        return await handle(c, () => readJsonBody(c, maxBodyBytes));
      } catch (err) {
        return openAiError(err);
      }
    },
  };
}

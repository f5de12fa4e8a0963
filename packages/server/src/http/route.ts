import type { Scope } from "@arbor/core/store";
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, type ApiErrorCode } from "../errors.js";
import { readJsonBody } from "./body.js";

export type Method = "GET" | "POST" | "DELETE" | "PATCH";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`; `text/event-stream` for SSE (the schema then describes each `data:`). */
  contentType?: "application/json" | "text/event-stream" | "text/html" | "text/javascript";
}

type Schema = z.ZodType | undefined;

/** A route described once: Hono serves it from this, the validator checks input against it, and the OpenAPI document is built from it. */
export interface RouteSpec<P extends Schema = Schema, Q extends Schema = Schema, B extends Schema = Schema> {
  method: Method;
  /** Hono syntax: `/api/sessions/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** No bearer token needed (health only). */
  public?: boolean;
  /**
   * What the principal must hold (see the README's "Security model"): `read` to look, `run` to
   * chat and change a session's course, `admin` to delete, revert, answer others' asks and
   * manage approvals. Every non-public route says; one that does not needs `admin`.
   */
  scope?: Scope;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads, by name, with what they mean. */
  headers?: Record<string, string>;
  /** What the route answers, by status; a bare description is a failure, answered with the one error body (`ErrorResponse`). */
  responses: Record<number, ResponseSpec | string>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

export type RouteHandler<P extends Schema, Q extends Schema, B extends Schema> = (
  input: RouteInput<P, Q, B>,
  c: Context,
) => Response | Promise<Response>;

export interface Route {
  spec: RouteSpec;
  handle(c: Context, maxBodyBytes: number): Promise<Response>;
}

/** `id: Session id "x y" is not valid: …; limit: Too small: expected number to be >=1`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

function parse<S extends z.ZodType>(schema: S, value: unknown, code: ApiErrorCode, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(code, `Invalid ${what}: ${describeIssues(result.error)}.`);
  return result.data;
}

export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  spec: RouteSpec<P, Q, B>,
  handler: RouteHandler<P, Q, B>,
): Route {
  return {
    spec,
    async handle(c, maxBodyBytes) {
      // Path parameters are all ids, so their failures are `invalid_id`; the rest are `invalid_input`.
      const params = spec.params ? parse(spec.params, c.req.param(), "invalid_id", "path parameter") : undefined;
      const query = spec.query ? parse(spec.query, c.req.query(), "invalid_input", "query") : undefined;
      const body = spec.body ? parse(spec.body, await readJsonBody(c, maxBodyBytes), "invalid_input", "request body") : undefined;
      return handler({ params, query, body } as RouteInput<P, Q, B>, c);
    },
  };
}

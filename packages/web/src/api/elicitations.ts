import { z } from "zod";
import { api } from "./client.js";
import { ignoreBody } from "./wire.js";

/** A form field as an MCP server sends it (a flat JSON Schema property); what the card renders. */
export interface ElicitationField {
  type?: string;
  title?: string;
  description?: string;
  format?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: string }> };
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

/**
 * An MCP server's elicitation waiting for the person (`GET /api/asks`, kind `elicitation`), or a login
 * it wants (kind `mcp_login`, mode `login`: a page to open, finished by the authorization server's redirect).
 */
export interface PendingElicitationAsk {
  id: string;
  session_id: string;
  server: string;
  message: string;
  mode: "form" | "url" | "login";
  call_id?: string;
  /** Form mode: the fields, in the server's order, and which must be given. */
  fields?: Array<[string, ElicitationField]>;
  required?: string[];
  /** URL mode: the page to open; login mode: the authorization server's login page. */
  url?: string;
}

const FieldShape = z.looseObject({
  type: z.optional(z.string()),
  title: z.optional(z.string()),
  description: z.optional(z.string()),
  format: z.optional(z.string()),
  enum: z.optional(z.array(z.unknown())),
  oneOf: z.optional(z.array(z.looseObject({ const: z.unknown(), title: z.optional(z.string()) }))),
  items: z.optional(
    z.looseObject({
      enum: z.optional(z.array(z.unknown())),
      anyOf: z.optional(z.array(z.looseObject({ const: z.unknown(), title: z.optional(z.string()) }))),
    }),
  ),
  default: z.optional(z.unknown()),
  minimum: z.optional(z.number()),
  maximum: z.optional(z.number()),
});

const SchemaShape = z.looseObject({
  properties: z.optional(z.record(z.string(), FieldShape)),
  required: z.optional(z.array(z.string())),
});

const AsksShape = z.object({
  asks: z.array(
    z.looseObject({
      kind: z.string(),
      id: z.string(),
      session_id: z.string(),
      elicitation: z.optional(
        z.looseObject({
          server: z.string(),
          message: z.string(),
          mode: z.enum(["form", "url"]),
          call_id: z.optional(z.string()),
          url: z.optional(z.string()),
          requested_schema: z.optional(SchemaShape),
        }),
      ),
      mcp_login: z.optional(
        z.looseObject({ server: z.string(), message: z.string(), url: z.string(), call_id: z.optional(z.string()) }),
      ),
    }),
  ),
});

/** The elicitations and MCP logins among `GET /api/asks`'s answer, their forms read for rendering. */
export function parseElicitationAsks(value: unknown): PendingElicitationAsk[] {
  const found: PendingElicitationAsk[] = [];
  for (const ask of AsksShape.parse(value).asks) {
    const login = ask.mcp_login;
    if (ask.kind === "mcp_login" && login) {
      const { server, message, url } = login;
      found.push({ id: ask.id, session_id: ask.session_id, server, message, mode: "login", url });
      continue;
    }
    const e = ask.elicitation;
    if (ask.kind !== "elicitation" || !e) continue;
    // The ask holds what the run event announced, under the same names; its form was read above.
    const pending = elicitationOfEvent({ ...e, id: ask.id, session_id: ask.session_id });
    if (pending) found.push(pending);
  }
  return found;
}

/**
 * The pending ask an `elicitation_request` run event announces (the run stream's snake_case, as
 * `GET /api/asks` has it); undefined for an event whose form cannot be read.
 */
export function elicitationOfEvent(event: {
  session_id: string;
  id: string;
  server: string;
  message: string;
  mode: "form" | "url" | "login";
  call_id?: string | undefined;
  url?: string | undefined;
  requested_schema?: Record<string, unknown> | undefined;
}): PendingElicitationAsk | undefined {
  const pending: PendingElicitationAsk = {
    id: event.id,
    session_id: event.session_id,
    server: event.server,
    message: event.message,
    mode: event.mode,
  };
  if (event.call_id !== undefined) pending.call_id = event.call_id;
  if (event.url !== undefined) pending.url = event.url;
  if (event.requested_schema !== undefined) {
    const schema = SchemaShape.safeParse(event.requested_schema);
    if (!schema.success) return undefined;
    pending.fields = Object.entries(schema.data.properties ?? {}) as Array<[string, ElicitationField]>;
    pending.required = schema.data.required ?? [];
  }
  return pending;
}

/** The session's elicitations waiting for an answer, on any instance over the store. */
export function listElicitations(sessionId: string): Promise<PendingElicitationAsk[]> {
  return api(`/api/asks?session_id=${encodeURIComponent(sessionId)}`, parseElicitationAsks);
}

/** Accepts an elicitation, with the form's content (a URL one without), or declines it (`POST /api/asks/:id`). */
export async function answerElicitation(id: string, accept: boolean, content?: Record<string, unknown>): Promise<void> {
  const body = accept ? { allow: true, ...(content === undefined ? {} : { content }) } : { allow: false };
  await api(`/api/asks/${encodeURIComponent(id)}`, ignoreBody, { json: body });
}

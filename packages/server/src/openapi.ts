import { z } from "zod";
import type { ResponseSpec, Route, RouteSpec } from "./http/route.js";
import type { EndpointOperation, ProtocolEndpoint } from "./protocols/protocol.js";
import { ErrorResponse, NAMED_SCHEMAS } from "./schemas.js";

type Json = Record<string, unknown>;

const COMPONENT = "#/components/schemas/";

function strip(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/**
 * The OpenAPI 3.1 document of the routes, generated from the same zod schemas the routes validate
 * with (`z.toJSONSchema`, JSON Schema 2020-12, which is OpenAPI 3.1's dialect). Named payloads go
 * to `components.schemas` and are referenced; path and query parameters are listed one by one.
 */
export function openApiDocument(
  routes: readonly Route[],
  info: { title: string; version: string },
  endpoints: readonly ProtocolEndpoint[] = [],
): Json {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) {
    registry.add(schema, { id: name });
    names.set(schema, name);
  }
  const generated = z.toJSONSchema(registry, { uri: (id) => `${COMPONENT}${id}`, unrepresentable: "any" }).schemas;
  const components: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(generated)) components[name] = strip(schema as Json);

  const schemaOf = (schema: z.ZodType, io: "input" | "output"): Json => {
    const name = names.get(schema);
    if (name !== undefined) return { $ref: `${COMPONENT}${name}` };
    return strip(z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json);
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const { spec } of routes) {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    paths[path] ??= {};
    (paths[path] as Record<string, Json>)[spec.method.toLowerCase()] = operation(spec, schemaOf);
  }
  for (const endpoint of endpoints) {
    const item: Record<string, Json> = {};
    for (const [method, op] of Object.entries(endpoint.operations)) item[method] = endpointOperation(endpoint, method, op);
    paths[endpoint.path] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      ...info,
      description:
        "Arbor's HTTP API. Errors are `{error: {code, message}}`. When the server has a token, every route but " +
        "/api/health and this reference page (/api/docs) needs `Authorization: Bearer <token>`.",
    },
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}

function parameters(location: "path" | "query", schema: z.ZodType | undefined, io: (s: z.ZodType) => Json): Json[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const json = io(field);
    const out: Json = { name, in: location, required: location === "path" || !field.safeParse(undefined).success, schema: json };
    if (typeof json.description === "string") out.description = json.description;
    return out;
  });
}

/** `POST /api/sessions/:id/leaf` → `postSessionsIdLeaf`. */
function operationId(spec: RouteSpec): string {
  const words = spec.path
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "" && w !== "api")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return spec.method.toLowerCase() + words.join("");
}

function operation(spec: RouteSpec, schemaOf: (s: z.ZodType, io: "input" | "output") => Json): Json {
  const input = (s: z.ZodType) => schemaOf(s, "input");
  const params = [
    ...parameters("path", spec.params, input),
    ...parameters("query", spec.query, input),
    ...Object.entries(spec.headers ?? {}).map(([name, description]) => ({
      name,
      in: "header",
      required: false,
      description,
      schema: { type: "string" },
    })),
  ];
  const responses: Record<string, Json> = {};
  for (const [status, entry] of Object.entries(spec.responses)) {
    const r: ResponseSpec = typeof entry === "string" ? { description: entry, schema: ErrorResponse } : entry;
    const response: Json = { description: r.description };
    if (r.schema) response.content = { [r.contentType ?? "application/json"]: { schema: schemaOf(r.schema, "output") } };
    responses[status] = response;
  }
  const op: Json = {
    operationId: operationId(spec),
    summary: spec.summary,
    tags: [spec.tag],
    responses,
  };
  if (spec.description) op.description = spec.description;
  if (params.length > 0) op.parameters = params;
  if (spec.body) op.requestBody = { required: true, content: { "application/json": { schema: schemaOf(spec.body, "input") } } };
  op.security = spec.public ? [] : [{ bearer: [] }];
  // The scope a token needs (403 scope_required without it); a route that names none needs admin.
  if (!spec.public) op["x-arbor-scope"] = spec.scope ?? "admin";
  return op;
}

/** A protocol endpoint's method: its messages are the protocol's (see `externalDocs`), so bodies are described, not schematised. */
function endpointOperation(endpoint: ProtocolEndpoint, method: string, op: EndpointOperation): Json {
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = r.contentType
      ? { description: r.description, content: { [r.contentType]: {} } }
      : { description: r.description };
  }
  const words = endpoint.path.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  const out: Json = {
    operationId: method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(""),
    summary: op.summary,
    description: op.description,
    tags: [endpoint.docs.tag],
    externalDocs: { url: endpoint.docs.url },
    responses,
    security: [{ bearer: [] }],
  };
  if (op.body) out.requestBody = { required: true, content: { [op.body]: { schema: { type: "object" } } } };
  return out;
}

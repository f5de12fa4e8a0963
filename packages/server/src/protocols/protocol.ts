import type { Scope } from "@arbor/core/store";
import type { Context } from "hono";
import type { ServerContext } from "../context.js";
import type { Route } from "../http/route.js";

/** One HTTP method of an endpoint as the OpenAPI document lists it. */
export interface EndpointOperation {
  summary: string;
  description: string;
  /** Content type of the request body, when the method takes one (JSON-RPC messages: application/json). */
  body?: string;
  /** Status → what it means and, when it has a body, its content type. */
  responses: Readonly<Record<number, { description: string; contentType?: string }>>;
}

/**
 * An endpoint that speaks a wire of its own (JSON-RPC, say) rather than the API's JSON routes:
 * served behind the same host, origin and token checks. Its messages are the protocol's own, which
 * the OpenAPI document cannot spell out, so it lists the endpoint's methods with what they carry and
 * points at the protocol's specification (`docs`).
 */
export interface ProtocolEndpoint {
  /** Exact path, every method. */
  path: string;
  /** What a principal needs to reach it at all; each call it carries then checks its own in the runtime. */
  scope: Scope;
  handle(c: Context): Promise<Response>;
  /** The methods a client uses, for the OpenAPI document. */
  operations: Readonly<Partial<Record<"get" | "post" | "delete", EndpointOperation>>>;
  /** The protocol's tag in the OpenAPI document and where its messages are specified. */
  docs: { tag: string; url: string };
}

/** What a protocol serves once mounted over a server's runtime. */
export interface MountedProtocol {
  /** Routes described like every API route: validated, served, and in the OpenAPI document. */
  routes: readonly Route[];
  endpoints: readonly ProtocolEndpoint[];
  /** Ends what the protocol holds open of its own (its sessions, their calls) when the server closes; runs go on. */
  close(): Promise<void>;
}

/**
 * A front door over the runtime: it maps its wire's requests to runtime calls (through
 * `shared/runs.ts`) and run events to its wire (a `RunEventWire`). Registered by one line in
 * `protocols/index.ts`; the server mounts every registered protocol.
 */
export interface Protocol {
  /** The protocol's folder under `src/protocols/`. */
  name: string;
  /** One line for the README and the conformance suite's report. */
  summary: string;
  mount(ctx: ServerContext): MountedProtocol;
}

/** A protocol that is only described routes (no endpoints, nothing to close). */
export function routesOnly(routes: readonly Route[]): MountedProtocol {
  return { routes, endpoints: [], close: async () => {} };
}

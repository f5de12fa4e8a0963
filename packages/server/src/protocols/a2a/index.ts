import { AgentCard, type AgentCard as AgentCardShape } from "@a2a-js/sdk";
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import type { Context } from "hono";
import type { ServerContext } from "../../context.js";
import { principalOf } from "../../http/principal.js";
import { SERVER_VERSION } from "../../version.js";
import type { EndpointOperation, Protocol } from "../protocol.js";
import { ArborA2AHandler, PrincipalUser } from "./handler.js";

/** Where the A2A JSON-RPC endpoint and the agent card are served. */
export const A2A_PATH = "/a2a";
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

const A2A_DOCS = { tag: "a2a", url: "https://a2a-protocol.org/latest/specification/" };

const RPC_OPERATIONS: Record<"post", EndpointOperation> = {
  post: {
    summary: "Send A2A JSON-RPC requests",
    description:
      "A JSON-RPC 2.0 request of the Agent2Agent protocol: `SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, " +
      "`CancelTask`, `SubscribeToTask`. A task is a session (task id = context id = session id); a streaming method answers " +
      "with a server-sent event stream of JSON-RPC responses. Errors are JSON-RPC errors with status 200.",
    body: "application/json",
    responses: { 200: { description: "The JSON-RPC response, or a stream of them.", contentType: "text/event-stream" } },
  },
};

const CARD_OPERATIONS: Record<"get", EndpointOperation> = {
  get: {
    summary: "The A2A agent card",
    description: "Arbor as an A2A agent: its JSON-RPC interface at /a2a and each agent a chat may name as a skill.",
    responses: { 200: { description: "The agent card.", contentType: "application/json" } },
  },
};

/** The card for a request: the interface's URL is the one the client reached this server by. */
function cardOf(ctx: ServerContext, origin: string): AgentCardShape {
  const defaults = ctx.runtime.defaults();
  return {
    name: "Arbor",
    description: "An Arbor agent runtime: each skill is one of its agents; a task is a session.",
    supportedInterfaces: [{ url: `${origin}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: SERVER_VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: defaults.agents.map((agent) => ({
      id: agent.name,
      name: agent.name,
      description: agent.description ?? `The ${agent.name} agent.`,
      tags: agent.name === defaults.defaultAgent ? ["default"] : [],
      examples: [],
      inputModes: ["text/plain"],
      outputModes: ["text/plain", "application/json"],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

const originOf = (c: Context) => new URL(c.req.url).origin;

function sse(stream: AsyncGenerator<unknown, void, undefined>, first: IteratorResult<unknown, void>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        if (!first.done) controller.enqueue(encoder.encode(`data: ${JSON.stringify(first.value)}\n\n`));
        for await (const message of stream) controller.enqueue(encoder.encode(`data: ${JSON.stringify(message)}\n\n`));
      } catch (err) {
        const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: null, error })}\n\n`));
      } finally {
        controller.close();
      }
    },
    async cancel() {
      await stream.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/** Arbor as an A2A agent: JSON-RPC at /a2a (the SDK's transport over Arbor's handler) and its card. */
export const a2a: Protocol = {
  name: "a2a",
  summary:
    "Arbor as an A2A agent: JSON-RPC at /a2a (tasks are sessions, asks are input-required), the card at /.well-known/agent-card.json.",
  mount(ctx) {
    let origin = "http://127.0.0.1";
    const handler = new ArborA2AHandler(ctx, () => cardOf(ctx, origin));
    const transport = new JsonRpcTransportHandler(handler);
    return {
      routes: [],
      endpoints: [
        {
          path: A2A_PATH,
          // GetTask, ListTasks and SubscribeToTask read; the handler's runtime calls ask for `run`
          // where a method sends, answers or cancels, per task, as the request's principal.
          scope: "read",
          operations: RPC_OPERATIONS,
          docs: A2A_DOCS,
          async handle(c) {
            if (c.req.method !== "POST")
              return c.json({ error: { code: "method_not_allowed", message: "POST JSON-RPC requests to /a2a." } }, 405);
            origin = originOf(c);
            // The handler acts as the request's principal: its scopes and projects, as on every door.
            const context = new ServerCallContext({ user: new PrincipalUser(principalOf(c)) });
            const answer = await transport.handle(await c.req.text(), context);
            if (!(Symbol.asyncIterator in answer)) return c.json(answer);
            // A stream whose first step fails (bad input, unknown task) is a plain JSON-RPC error, not a stream.
            try {
              const first = await answer.next();
              return sse(answer, first);
            } catch (err) {
              return c.json({ jsonrpc: "2.0", id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(err) });
            }
          },
        },
        {
          path: AGENT_CARD_PATH,
          scope: "read",
          operations: CARD_OPERATIONS,
          docs: A2A_DOCS,
          async handle(c) {
            if (c.req.method !== "GET")
              return c.json({ error: { code: "method_not_allowed", message: "GET the agent card." } }, 405);
            return c.json(AgentCard.toJSON(cardOf(ctx, originOf(c))) as object);
          },
        },
      ],
      close: async () => {},
    };
  },
};

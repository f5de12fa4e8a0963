import type { LlmCache, Runtime, WatchHub } from "@arbor/core";
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { ClusterRelay } from "./cluster/cluster-node.js";
import type { McpSessionLimits, ServerContext } from "./context.js";
import { ApiError, toApiError } from "./errors.js";
import { authorizeRoute } from "./http/authorize.js";
import { principalOf } from "./http/principal.js";
import type { Route } from "./http/route.js";
import { securityMiddleware } from "./http/security.js";
import { type ListeningServer, type ListenOptions, listen } from "./listen.js";
import { openApiDocument } from "./openapi.js";
import { SESSION_HEADER } from "./protocols/http-chat/sse-response.js";
import { PROTOCOLS } from "./protocols/index.js";
import { apiDocsRoutes, isApiDocsPath } from "./routes/api-docs.js";
import { askRoutes } from "./routes/asks.js";
import { cacheRoutes } from "./routes/cache.js";
import { debugRoutes } from "./routes/debug.js";
import { infoRoutes } from "./routes/info.js";
import { mcpRoutes } from "./routes/mcp.js";
import { messageRoutes } from "./routes/messages.js";
import { metaRoutes } from "./routes/meta.js";
import { permissionRoutes } from "./routes/permissions.js";
import { planRoutes } from "./routes/plan.js";
import { revertRoutes } from "./routes/revert.js";
import { sessionRoutes } from "./routes/sessions.js";
import { summaryRoutes } from "./routes/summary.js";
import { timelineRoutes } from "./routes/timeline.js";
import { traceRoutes } from "./routes/traces.js";
import { watchRoutes } from "./routes/watch.js";
import { isApiPath, webAppHandler } from "./routes/web-app.js";
import { SERVER_VERSION } from "./version.js";

export { SERVER_VERSION };

export interface CorsOptions {
  /** Origins allowed to call the API from a browser (`https://app.example`), or `*` for any. */
  origins: readonly string[];
}

export interface ServerOptions {
  /**
   * The runtime the server drives. The server reads its store, watch hub, LLM cache, busy state and
   * recorded run streams through it, so what the server says always agrees with what runs.
   */
  runtime: Runtime;
  /** Bearer token every route but /api/health requires; needed to listen on a non-loopback host. */
  token?: string;
  /** No CORS headers unless configured. */
  cors?: CorsOptions;
  /** Largest request body accepted (default 1 MiB); larger ones are refused with 413. */
  maxBodyBytes?: number;
  /** The LLM response cache `/api/cache/*` reports on and clears (default: the runtime's). */
  cache?: LlmCache;
  /** Directory of the built inspector served at `/` (default: this package's `web-dist/`). */
  webRoot?: string;
  /**
   * Told every failure answered with a 5xx, whole (the client gets its code and a message without
   * paths or stack): where the operator reads the details. Default: nowhere.
   */
  onError?: (err: unknown) => void;
  /**
   * This server is one instance of a cluster (`arbor serve --cluster`): health says whether it
   * takes work, and aborts and permission answers reach runs that other instances drive.
   */
  cluster?: ClusterRelay;
  /** Bounds on the MCP sessions `/mcp` keeps (default: 500 sessions, ended after 30 minutes idle). */
  mcpSessions?: McpSessionLimits;
}

export interface ArborServer {
  /** The Hono app: mount it elsewhere, or call `app.request()` in tests. */
  readonly app: Hono;
  /** Every route, as described (the OpenAPI document is built from these). */
  readonly routes: readonly Route[];
  /** The trace watch hub the server's watchers read: the runtime's, which its runs publish to. */
  readonly watch: WatchHub;
  /** Serves the app over HTTP; refuses a non-loopback host without a token. */
  listen(options?: ListenOptions): Promise<ListeningServer>;
  /** Ends open event streams; runs go on and are still recorded (the runtime is the caller's, as is the store). */
  close(): void;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The REST API's resources, after the protocols' routes; in this order, which is the order routes are matched in. */
const RESOURCE_ROUTES: readonly ((ctx: ServerContext) => Route[])[] = [
  sessionRoutes,
  revertRoutes,
  summaryRoutes,
  messageRoutes,
  permissionRoutes,
  askRoutes,
  planRoutes,
  watchRoutes,
  cacheRoutes,
  debugRoutes,
  traceRoutes,
  timelineRoutes,
];

/** The HTTP API over a runtime (and the store it was given). */
export function createServer(options: ServerOptions): ArborServer {
  const token = options.token;
  if (token !== undefined && (token.length === 0 || /\s/.test(token))) {
    throw new ApiError("invalid_input", "The server token must be non-empty and contain no whitespace.");
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ApiError("invalid_input", `maxBodyBytes must be a positive integer, not ${maxBodyBytes}.`);
  }
  const { runtime } = options;
  // The runtime's runs publish to its hub whoever started them; the server's watchers only read it.
  const watch: WatchHub = runtime.watch;
  const cache = options.cache ?? runtime.cache;
  const ctx: ServerContext = {
    runtime,
    store: runtime.store,
    watch,
    cache,
    cluster: options.cluster,
    ...(options.mcpSessions ? { mcpSessions: options.mcpSessions } : {}),
  };

  const protocols = PROTOCOLS.map((protocol) => protocol.mount(ctx));
  let document: Record<string, unknown> | undefined;
  const routes: Route[] = [
    ...metaRoutes(() => {
      document ??= openApiDocument(
        routes,
        { title: "Arbor", version: SERVER_VERSION },
        protocols.flatMap((p) => p.endpoints),
      );
      return document;
    }, options.cluster),
    ...apiDocsRoutes(),
    ...infoRoutes(ctx),
    ...mcpRoutes(ctx),
    ...protocols.flatMap((p) => p.routes),
    ...RESOURCE_ROUTES.flatMap((routesOf) => routesOf(ctx)),
  ];

  const app = new Hono();
  app.onError((err, c) => {
    const { status, body } = toApiError(err);
    if (status >= 500) options.onError?.(err);
    return c.json(body, status as 400);
  });
  app.notFound((c) =>
    c.json(
      { error: { code: "not_found", message: `No route ${c.req.method} ${c.req.path}; GET /api/openapi.json lists them.` } },
      404,
    ),
  );
  const corsOrigins = options.cors?.origins ?? [];
  if (corsOrigins.length > 0) {
    app.use(
      "*",
      cors({
        origin: corsOrigins.includes("*") ? "*" : [...corsOrigins],
        allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
        allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
        exposeHeaders: [SESSION_HEADER],
        maxAge: 600,
      }),
    );
  }
  const publicPaths = new Set(routes.filter((r) => r.spec.public).map((r) => r.spec.path));
  // The inspector's shell is public (it holds no data; its API calls carry the token), but still
  // passes the host and origin checks.
  const endpoints = protocols.flatMap((p) => p.endpoints);
  const endpointPaths = new Set(endpoints.map((e) => e.path));
  // Described routes outside /api (a protocol's `/v1/...`) are guarded like the API, their parameters included.
  const guardedPrefixes = routes
    .filter((r) => !r.spec.public && !isApiPath(r.spec.path))
    .map((r) => r.spec.path.split("/:")[0] as string);
  const isGuarded = (path: string) => guardedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  const isPublicPath = (path: string) =>
    (!isApiPath(path) && !endpointPaths.has(path) && !isGuarded(path)) || isApiDocsPath(path);
  const authenticate = (bearer: string) => runtime.access.authenticate(bearer);
  const bearerRequired = runtime.access.acceptsJwt;
  app.use("*", securityMiddleware({ token, authenticate, bearerRequired, corsOrigins, maxBodyBytes, publicPaths, isPublicPath }));
  for (const route of routes) {
    app.on(route.spec.method, route.spec.path, async (c) => {
      await authorizeRoute(runtime, route.spec, c);
      return route.handle(c, maxBodyBytes);
    });
  }
  // Protocols with a wire of their own (MCP's JSON-RPC) sit behind the same checks and token.
  for (const endpoint of endpoints) {
    app.all(endpoint.path, (c) => {
      runtime.access.require(principalOf(c), endpoint.scope, `${c.req.method} ${endpoint.path}`);
      return endpoint.handle(c);
    });
  }
  // Last, so every API route wins; it answers only GETs outside /api.
  app.get("*", webAppHandler(options.webRoot));

  const close = () => {
    runtime.events.close();
    for (const protocol of protocols) void protocol.close();
  };
  return {
    app,
    routes,
    watch,
    listen: (listenOptions) =>
      listen(app, {
        ...listenOptions,
        hasToken: token !== undefined || bearerRequired,
        onClose: close,
      }),
    close,
  };
}

export { type ClusterHealth, ClusterNode, type ClusterRelay, type ClusterSettings } from "./cluster/cluster-node.js";
export type { McpSessionLimits } from "./context.js";
export { ApiError, type ApiErrorBody, type ApiErrorCode, type ServerErrorCode, statusFor } from "./errors.js";
export type { Method, ResponseSpec, Route, RouteSpec } from "./http/route.js";
export { isLoopbackHost } from "./http/security.js";
export { DEFAULT_HOST, DEFAULT_PORT, type ListeningServer, type ListenOptions } from "./listen.js";
export { openApiDocument } from "./openapi.js";
export { type AcpAgentDeps, createAcpAgent } from "./protocols/acp/agent.js";
export { type AcpStdioOptions, serveAcpStdio } from "./protocols/acp/stdio.js";
export { type ArborMcpDeps, createArborMcpServer } from "./protocols/mcp/arbor-mcp-server.js";
export { type McpEndpoint, mcpEndpoint } from "./protocols/mcp/http-endpoint.js";
export { MCP_PATH } from "./protocols/mcp/index.js";
export { type McpStdioOptions, serveMcpStdio } from "./protocols/mcp/stdio.js";
export type { ArborUIDataTypes, ArborUIMessage, ArborUIMetadata } from "./protocols/ui-chat/ui-chunks.js";
export { arborDataPartSchemas } from "./protocols/ui-chat/ui-data-parts.js";
export * from "./schemas.js";
export {
  type ArborServer,
  type CorsOptions,
  createServer,
  DEFAULT_MAX_BODY_BYTES,
  SERVER_VERSION,
  type ServerOptions,
} from "./server.js";

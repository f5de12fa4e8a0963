/**
 * The SDK's client side, loaded the first time a server is started: most commands configure no MCP
 * server, and loading the SDK up front would slow every start of the CLI.
 */
export async function loadSdk() {
  const [client, stdio, http, types, auth] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ListRootsRequestSchema: types.ListRootsRequestSchema,
    ResourceUpdatedNotificationSchema: types.ResourceUpdatedNotificationSchema,
    ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
    auth: auth.auth,
  };
}

/** The loaded SDK client side, handed to what builds transports and reads its errors. */
export type Sdk = Awaited<ReturnType<typeof loadSdk>>;

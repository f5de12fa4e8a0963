/** The server's version, as the OpenAPI document and the MCP `initialize` answer give it. */
export const SERVER_VERSION = "0.1.0";

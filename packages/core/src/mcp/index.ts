export * from "./connection.js";
export * from "./manager.js";
export * from "./mcp-tool.js";
export * from "./names.js";
export * from "./results.js";

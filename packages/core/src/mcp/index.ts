export * from "./connection.js";
export * from "./elicitations.js";
export * from "./manager.js";
export * from "./mcp-tool.js";
export * from "./names.js";
export * from "./results.js";

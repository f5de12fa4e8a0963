import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../../src/config/schema.js";

/** The MCP servers from npm the tests start, from the workspace's node_modules (never fetched at run time). */
const modules = fileURLToPath(new URL("../../../../node_modules/@modelcontextprotocol/", import.meta.url));

export const EVERYTHING_BIN = `${modules}server-everything/dist/index.js`;
export const FILESYSTEM_BIN = `${modules}server-filesystem/dist/index.js`;

export function everythingStdio(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_BIN, "stdio"], timeoutMs: 30_000, enabled: true, ...overrides };
}

export function filesystemStdio(root: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [FILESYSTEM_BIN, root], timeoutMs: 30_000, enabled: true, ...overrides };
}

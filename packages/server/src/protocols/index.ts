import { a2a } from "./a2a/index.js";
import { agUi } from "./ag-ui/index.js";
import { httpChat } from "./http-chat/index.js";
import { mcp } from "./mcp/index.js";
import { openResponses } from "./open-responses/index.js";
import type { Protocol } from "./protocol.js";
import { uiChat } from "./ui-chat/index.js";

/**
 * Every protocol the server speaks, mounted by `createServer` in this order. Adding one is a
 * folder under `src/protocols/` exporting a `Protocol`, and one line here (README: "Adding a protocol").
 */
export const PROTOCOLS: readonly Protocol[] = [httpChat, uiChat, mcp, openResponses, a2a, agUi];

import type { AnyToolDefinition, RunInput, ThinkingLevel } from "@arbor/core";
import type { Principal } from "@arbor/core/store";
import type { RunAttachment, Workspace } from "@arbor/core/tools";
import type { z } from "zod";
import { type ChatDebug, debugLevelOf } from "../../cache-debug-schemas.js";

/**
 * A request to answer a message, as every front door reads it off its wire (each validates its own
 * wire with zod first): the chat route's body, a `useChat` request, an MCP tool call, a queued chat
 * a cluster worker takes. `toRunInput` is the one mapping from it to the runtime's input.
 */
export interface ChatTurn {
  message: string;
  /** Continue this session; without it (and without `newSessionId`) the run starts a new one. */
  sessionId?: string;
  /** The id a new session gets (a client that names its chats); created only once the input is valid. */
  newSessionId?: string;
  /** Continue from this entry of `sessionId` instead of its leaf (a user message is re-sent as a sibling). */
  fromEntryId?: string;
  agent?: string;
  /** The workspace for this turn (an ACP client's session folder); default the runtime's. */
  cwd?: string;
  model?: string;
  thinking?: ThinkingLevel;
  /** As the wire says it: `true` is the standard level, `false` off. */
  debug?: z.output<typeof ChatDebug>;
  maxTurns?: number;
  /** The queued request this turn came from, kept on its user message (a retried cluster job looks for it). */
  requestKey?: string;
  /** Extra system text for this run only (a request's instructions). */
  system?: string;
  /** Tools the client brings for this run only (the Responses API's function tools); a turn with them is not queueable. */
  tools?: readonly AnyToolDefinition[];
  /** Who sends it: the runtime checks its `run` scope and projects, and records it on the message and a new session. */
  principal?: Principal;
  /** Where the file tools and bash work for this turn (an ACP client's buffers and terminals); a turn with it is not queueable. */
  workspace?: Workspace;
  /** MCP resources the runtime reads into the message; a turn with them is not queueable (yet). */
  attachments?: readonly RunAttachment[];
  /** An MCP prompt the runtime fills in ahead of the message; a turn with it is not queueable (yet). */
  mcpPrompt?: RunInput["mcpPrompt"];
}

/**
 * The runtime's input for a turn. Runs are started with `busy: "reject"`: a front door answers a
 * session with a run in progress before it starts one (409, a steer), so a run that slipped past
 * that check ends at once with `session_busy` instead of queueing behind the other unseen.
 */
export function toRunInput(turn: ChatTurn): RunInput {
  return {
    prompt: turn.message,
    busy: "reject",
    ...(turn.sessionId === undefined ? {} : { sessionId: turn.sessionId }),
    ...(turn.newSessionId === undefined ? {} : { newSessionId: turn.newSessionId }),
    ...(turn.fromEntryId === undefined ? {} : { fromEntryId: turn.fromEntryId }),
    ...(turn.agent === undefined ? {} : { agent: turn.agent }),
    ...(turn.cwd === undefined ? {} : { cwd: turn.cwd }),
    ...(turn.model === undefined ? {} : { model: turn.model }),
    ...(turn.thinking === undefined ? {} : { thinking: turn.thinking }),
    ...(turn.debug === undefined ? {} : { debug: debugLevelOf(turn.debug) }),
    ...(turn.maxTurns === undefined ? {} : { maxTurns: turn.maxTurns }),
    ...(turn.requestKey === undefined ? {} : { requestKey: turn.requestKey }),
    ...(turn.system === undefined ? {} : { system: turn.system }),
    ...(turn.tools === undefined ? {} : { tools: turn.tools }),
    ...(turn.principal === undefined ? {} : { principal: turn.principal }),
    ...(turn.workspace === undefined ? {} : { workspace: turn.workspace }),
    ...(turn.attachments === undefined ? {} : { attachments: turn.attachments }),
    ...(turn.mcpPrompt === undefined ? {} : { mcpPrompt: turn.mcpPrompt }),
  };
}

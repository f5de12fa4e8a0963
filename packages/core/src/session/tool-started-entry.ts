import { z } from "zod";

/**
 * `customType` of the `custom` entry a run writes just before a call of a tool with effects starts:
 * after a crash it tells a call that may have done its work from one that never began, and it keeps
 * the key the call was given so a repeat can pass the same one.
 */
export const TOOL_STARTED_ENTRY_TYPE = "arbor.tool_started";

export const ToolStartedSchema = z.object({
  callId: z.string().min(1),
  tool: z.string().min(1),
  idempotencyKey: z.string().min(1),
});

export type ToolStarted = z.infer<typeof ToolStartedSchema>;

/**
 * `customType` of the `custom` entry a call writes once its work is handed to something that outlives
 * this process (an MCP server's task): a resumed run gives the data back to the call of a `resumable`
 * tool (`ToolContext.checkpoint`), which takes the work up rather than starting it again. The last
 * one written for a call is the one given back.
 */
export const TOOL_CHECKPOINT_ENTRY_TYPE = "arbor.tool_checkpoint";

export const ToolCheckpointSchema = z.object({
  callId: z.string().min(1),
  tool: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
});

export type ToolCheckpointRecord = z.infer<typeof ToolCheckpointSchema>;

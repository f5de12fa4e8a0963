import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ArborError } from "../errors.js";
import type { BlobStore } from "../tools/blob-store.js";
import { stableJson } from "../tools/doom-loop.js";
import type { AnyToolDefinition, ToolResult } from "../tools/tool.js";
import type { McpCallOptions, McpConnection } from "./connection.js";
import { elicitationEventsKey } from "./elicitation-events.js";
import type { ElicitationAnswer, ElicitationListener, PendingElicitationInput } from "./elicitations.js";
import type { McpLoginAnswer, McpLoginListener, PendingMcpLoginInput } from "./login-asks.js";
import { mcpToolName } from "./names.js";
import { type McpResultMetadata, resultAttachments, resultMetadata, resultText } from "./results.js";
import { callsAsTask, MCP_TASK_CHECKPOINT_KEY } from "./tasks.js";

/** Read-only results reused within the TTL, keyed by server, tool and arguments. */
export class McpResultCache {
  private readonly entries = new Map<string, { expires: number; result: ToolResult<McpResultMetadata> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 256,
  ) {}

  get(key: string): ToolResult<McpResultMetadata> | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.result;
  }

  set(key: string, result: ToolResult<McpResultMetadata>): void {
    this.entries.delete(key);
    this.entries.set(key, { expires: this.now() + this.ttlMs, result });
    // Oldest first: a Map keeps insertion order.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Forgets a server's results (its tools changed, so their answers may have too). */
  dropServer(server: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(`${server}\0`)) this.entries.delete(key);
  }
}

/**
 * Puts a server's elicitation to the person (a durable ask, `PendingElicitations.wait`) and resolves
 * with the answer; `listener` (the run's, when the call is part of one) hears when it is asked and ends.
 */
export type McpElicitor = (
  request: PendingElicitationInput,
  signal: AbortSignal,
  listener?: ElicitationListener,
) => Promise<ElicitationAnswer>;

/** Puts a login a server wants during a call to the person (a durable `mcp_login` ask) and resolves with the answer. */
export type McpLoginAsker = (
  request: PendingMcpLoginInput,
  signal: AbortSignal,
  listener?: McpLoginListener,
) => Promise<McpLoginAnswer>;

export interface McpToolDeps {
  connection: McpConnection;
  cache: McpResultCache;
  blobs: BlobStore | undefined;
  elicit: McpElicitor | undefined;
  login?: McpLoginAsker | undefined;
}

/** The `_meta` field of a `tools/call` request that carries the call's idempotency key. */
export const MCP_IDEMPOTENCY_KEY = "arbor/idempotencyKey";

// The server checks arguments against its own schema; Arbor only insists on an object.
const McpArgumentsSchema = z.record(z.string(), z.unknown());

/**
 * An MCP server's tool as an Arbor tool: asks permission under its own name like any tool, then
 * calls the server. Progress reports become the call's live progress; an `isError` result is a tool
 * error the model reads. A tool the server marks read-only is answered from the result cache when
 * the same arguments were sent within the TTL.
 */
export function mcpTool(server: string, tool: Tool, deps: McpToolDeps): AnyToolDefinition {
  const name = mcpToolName(server, tool.name);
  const readOnly = tool.annotations?.readOnlyHint === true;
  // The server's own word on what a repeat does; anything it does not vouch for runs at most once.
  const effects = readOnly ? "none" : tool.annotations?.idempotentHint === true ? "idempotent-by-key" : "at-most-once";
  const title = tool.annotations?.title ?? tool.title;
  // A tool the server may run as a task can be followed again after a restart, from its task id.
  const taskable = callsAsTask(tool, true);
  return {
    name,
    description: `${tool.description ?? title ?? tool.name} (MCP server "${server}", tool "${tool.name}")`,
    input: McpArgumentsSchema,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    effects,
    ...(taskable ? { resumable: true } : {}),
    async execute(input, ctx): Promise<ToolResult<McpResultMetadata>> {
      const args = input as Record<string, unknown>;
      const saved = ctx.checkpoint?.saved?.[MCP_TASK_CHECKPOINT_KEY];
      const resumedTask = typeof saved === "string" ? saved : undefined;
      // A task already created was allowed when it was: taking it up asks nothing again.
      if (resumedTask === undefined) {
        await ctx.ask({ permission: name, patterns: ["*"], metadata: { server, tool: tool.name } });
      }
      const key = `${server}\0${tool.name}\0${stableJson(args)}`;
      if (readOnly) {
        const hit = deps.cache.get(key);
        if (hit) return { ...hit, cached: true };
      }
      const elicit = deps.elicit;
      const listener = ctx.run?.get(elicitationEventsKey);
      const login = deps.login;
      const options: McpCallOptions = {
        signal: ctx.abort,
        ...(login
          ? {
              onLogin: (url: URL) =>
                login({ sessionId: ctx.sessionId, callId: ctx.callId, server, url: url.href }, ctx.abort, listener),
            }
          : {}),
        ...(elicit
          ? {
              // Ends when the server withdraws its request or this call stops (the run aborted).
              onElicit: (request, signal) =>
                elicit(
                  { sessionId: ctx.sessionId, callId: ctx.callId, server, ...request },
                  AbortSignal.any([signal, ctx.abort]),
                  listener,
                ),
            }
          : {}),
        ...(ctx.idempotencyKey !== undefined ? { meta: { [MCP_IDEMPOTENCY_KEY]: ctx.idempotencyKey } } : {}),
        onProgress: (p) =>
          ctx.metadata({
            title: p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ""}`,
            metadata: { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) },
          }),
      };
      const checkpoint = ctx.checkpoint;
      const result =
        resumedTask !== undefined || (taskable && callsAsTask(tool, deps.connection.offersToolTasks))
          ? await deps.connection.callToolTask(tool.name, args, options, {
              ...(resumedTask !== undefined ? { taskId: resumedTask } : {}),
              created: async (taskId) => {
                await checkpoint?.save({ [MCP_TASK_CHECKPOINT_KEY]: taskId });
              },
              onStatus: (task) =>
                ctx.metadata({
                  title: task.statusMessage ?? `task ${task.status}`,
                  metadata: { taskId: task.taskId, taskStatus: task.status },
                }),
            })
          : await deps.connection.callTool(tool.name, args, options);
      const output = resultText(result);
      if (result.isError) {
        throw new ArborError("tool_failed", `MCP tool "${tool.name}" on server "${server}" reported an error: ${output}`, {
          server,
        });
      }
      const done: ToolResult<McpResultMetadata> = {
        output,
        title: `${server}: ${tool.name}`,
        metadata: await resultMetadata(server, tool.name, result, deps.blobs),
      };
      const attachments = resultAttachments(result);
      if (attachments.length > 0) done.attachments = attachments;
      if (readOnly) deps.cache.set(key, done);
      return done;
    },
  };
}

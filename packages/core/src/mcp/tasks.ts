import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Task, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ArborError } from "../errors.js";

/** How often a task is polled when its server suggests no interval. */
export const DEFAULT_TASK_POLL_MS = 1_000;
/** How long a cancellation sent to the server of an aborted call is waited on. */
const CANCEL_WAIT_MS = 5_000;

/** The key of a call's checkpoint (`ToolContext.checkpoint`) that holds its MCP task id. */
export const MCP_TASK_CHECKPOINT_KEY = "mcpTaskId";

/** Whether a server's tool is called as a task: the tool says it may be, and the server offers tasks for tool calls. */
export function callsAsTask(tool: Pick<Tool, "execution">, serverOffersTasks: boolean): boolean {
  const support = tool.execution?.taskSupport;
  // A tool that requires a task is called as one whatever the server's capabilities say: a plain call would only be refused.
  return support === "required" || (support === "optional" && serverOffersTasks);
}

/** What following one task reports and keeps. */
export interface TaskCallHooks {
  /** A task an earlier run of this call created (its checkpoint): followed rather than created again. */
  taskId?: string;
  /** Resolves once the new task's id is stored where a resumed run finds it; the task is only waited on after. */
  created(taskId: string): Promise<void>;
  /** Each status the server reports while the task works. */
  onStatus(task: Task): void;
}

export interface TaskRequestOptions {
  signal: AbortSignal;
  timeout: number;
  meta?: Record<string, unknown>;
}

/** Runs one request against the server, turning the SDK's failures into Arbor's (the connection's guard). */
export type TaskSend = <T>(request: (client: Client) => Promise<T>) => Promise<T>;

/**
 * Calls a tool as an MCP task (tools/call with `task`), or takes up the task an earlier run created:
 * polls tasks/get at the server's interval, reporting each status, fetches tasks/result once the task
 * is done, and sends tasks/cancel when the call is aborted. The task id is stored (`created`) before
 * the first poll, so a run that stops while the task works finds it again instead of calling anew.
 */
export async function callToolAsTask(
  send: TaskSend,
  tool: string,
  args: Record<string, unknown>,
  options: TaskRequestOptions,
  hooks: TaskCallHooks,
): Promise<CallToolResult> {
  const { CallToolResultSchema, CreateTaskResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const { signal, timeout } = options;
  let taskId = hooks.taskId;
  // A task just created is polled after its interval (its creation was its first status); one taken up at once.
  let wait = 0;
  if (taskId === undefined) {
    const created = await send((client) =>
      client.request(
        { method: "tools/call", params: { name: tool, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) } },
        CreateTaskResultSchema,
        { signal, timeout, task: {} },
      ),
    );
    taskId = created.task.taskId;
    // Stored even when the run was aborted meanwhile: the task exists on the server either way.
    await hooks.created(taskId);
    hooks.onStatus(created.task);
    wait = created.task.pollInterval ?? DEFAULT_TASK_POLL_MS;
  }
  const id = taskId;
  try {
    for (;;) {
      if (wait > 0) await sleep(wait, undefined, { signal });
      signal.throwIfAborted();
      const task = await send((client) => client.experimental.tasks.getTask(id, { signal, timeout }));
      hooks.onStatus(task);
      if (task.status === "completed" || task.status === "input_required") {
        // tasks/result answers a finished task's result, and for one waiting on input it delivers the
        // server's requests (elicitation) and blocks until the task is done.
        const result = await send((client) =>
          client.experimental.tasks.getTaskResult(id, CallToolResultSchema, { signal, timeout, resetTimeoutOnProgress: true }),
        );
        return result as CallToolResult;
      }
      if (task.status === "failed") {
        // A failed task may keep a result that says why; one that kept none is told by its status message.
        const result = await send((client) =>
          client.experimental.tasks.getTaskResult(id, CallToolResultSchema, { signal, timeout }),
        ).catch(() => undefined);
        return result?.isError === true ? (result as CallToolResult) : failedResult(task);
      }
      if (task.status === "cancelled") {
        throw new ArborError(
          "tool_failed",
          `The server cancelled task ${id}${task.statusMessage ? `: ${task.statusMessage}` : ""}.`,
        );
      }
      wait = task.pollInterval ?? DEFAULT_TASK_POLL_MS;
    }
  } catch (err) {
    if (signal.aborted) {
      // The run stopped: the server is told to stop too, but an unreachable one does not hold the stop up.
      await send((client) =>
        client.experimental.tasks.cancelTask(id, { signal: AbortSignal.timeout(CANCEL_WAIT_MS), timeout: CANCEL_WAIT_MS }),
      ).catch(() => {});
      throw new ArborError("aborted", "[Tool execution was interrupted]");
    }
    throw err;
  }
}

/** A failed task whose result says nothing of the failure: the model reads the server's status message. */
function failedResult(task: Task): CallToolResult {
  return { isError: true, content: [{ type: "text", text: task.statusMessage ?? `Task ${task.taskId} failed.` }] };
}

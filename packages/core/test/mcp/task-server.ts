import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Request, RequestId, Result, Task } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { sdkHttpServer } from "./servers.js";

/**
 * The SDK's in-memory task store, its tasks shared by every MCP session: the SDK's own store hides a
 * task from any session but the one that created it, and a client started again after a crash has a
 * new session. A server whose tasks outlive a connection (Arbor's own start_run tasks) works this way.
 */
class SharedTaskStore implements TaskStore {
  readonly inner = new InMemoryTaskStore();
  createTask(params: CreateTaskOptions, requestId: RequestId, request: Request): Promise<Task> {
    return this.inner.createTask(params, requestId, request);
  }
  getTask(taskId: string): Promise<Task | null> {
    return this.inner.getTask(taskId);
  }
  storeTaskResult(taskId: string, status: "completed" | "failed", result: Result): Promise<void> {
    return this.inner.storeTaskResult(taskId, status, result);
  }
  getTaskResult(taskId: string): Promise<Result> {
    return this.inner.getTaskResult(taskId);
  }
  updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string): Promise<void> {
    return this.inner.updateTaskStatus(taskId, status, statusMessage);
  }
  listTasks(cursor?: string) {
    return this.inner.listTasks(cursor);
  }
}

export interface TaskServer {
  url: string;
  /** How many times `slow_job` was called (a task created). */
  readonly created: number;
  /** Finishes every task still working, each with "done: <label>". */
  finishAll(): Promise<void>;
  /** A task's status on the server. */
  status(taskId: string): Promise<Task["status"] | undefined>;
  close(): Promise<void>;
}

/**
 * An MCP server (the SDK's McpServer over Streamable HTTP on 127.0.0.1) whose tool `slow_job` runs
 * only as a task (taskSupport "required"), working until the test calls `finishAll`; tasks are polled
 * every 20 ms.
 */
export async function taskServer(): Promise<TaskServer> {
  const store = new SharedTaskStore();
  const working = new Map<string, string>();
  let created = 0;
  const { url, close } = await sdkHttpServer(() => {
    const server = new McpServer(
      { name: "jobs", version: "1.0.0" },
      { capabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } }, taskStore: store },
    );
    server.experimental.tasks.registerToolTask(
      "slow_job",
      {
        description: "Runs a long job.",
        inputSchema: { label: z.string() },
        execution: { taskSupport: "required" },
      },
      {
        createTask: async ({ label }, extra) => {
          created++;
          const task = await extra.taskStore.createTask({ ttl: 600_000, pollInterval: 20 });
          working.set(task.taskId, label);
          return { task };
        },
        getTask: async (_args, extra) => {
          const task = await extra.taskStore.getTask(extra.taskId);
          if (!task) throw new Error(`no task ${extra.taskId}`);
          return task;
        },
        getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
      },
    );
    return server;
  });
  return {
    url,
    get created() {
      return created;
    },
    async finishAll() {
      for (const [taskId, label] of working) {
        working.delete(taskId);
        const task = await store.getTask(taskId);
        if (task?.status !== "working") continue;
        await store.storeTaskResult(taskId, "completed", { content: [{ type: "text", text: `done: ${label}` }] });
      }
    },
    status: async (taskId) => (await store.getTask(taskId))?.status,
    close,
  };
}

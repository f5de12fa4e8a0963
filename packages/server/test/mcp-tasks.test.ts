import { join } from "node:path";
import { builtinTools, createRuntime, openStore, type Store, WatchHub } from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { scriptedModel, text } from "@arbor/testkit";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createServer } from "../src/index.js";
import { connectMcp } from "./helpers/mcp-client.js";
import { onCleanup, workspaceDir } from "./helpers/server.js";

/**
 * A store whose new sessions are written only once the test opens the gate: the window between
 * start_run answering with its task and the run's session reaching the store, held open.
 */
function gatedSessions(store: Store): { store: Store; open(): void } {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const gated = new Proxy(store, {
    get(target, key) {
      if (key === "createSession") {
        return async (...args: Parameters<Store["createSession"]>) => {
          await gate;
          return target.createSession(...args);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: gated, open };
}

async function serveGated(answer: string) {
  const root = workspaceDir();
  const home = join(root, "home");
  const inner = await openStore(join(root, "store"));
  const { store, open } = gatedSessions(inner);
  const blobs = new MemoryBlobStore();
  const runtime = createRuntime({
    store,
    watch: new WatchHub(store),
    cwd: join(root, "work"),
    arborHome: home,
    env: {},
    blobs,
    model: scriptedModel([[text(answer)]]),
    tools: builtinTools({ blobs, arborHome: home }),
  });
  const listening = await createServer({ runtime }).listen({ host: "127.0.0.1", port: 0 });
  onCleanup(async () => {
    // The run may still wait for its session: let it through so the runtime can close.
    open();
    await listening.close();
    await runtime.close();
    await inner.close();
  });
  return { url: listening.url, store: inner, open };
}

describe("start_run as an MCP task, read at once", () => {
  it("tasks/get right after the task is created answers working before the run's session is written, then follows the run", async () => {
    const server = await serveGated("Done at last.");
    const client = await connectMcp(server, null);
    const created = await client.request(
      { method: "tools/call", params: { name: "start_run", arguments: { prompt: "go" }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    // The session is not in the store yet (its write waits on the gate), and this process started the run.
    expect((await server.store.listSessions()).sessions).toEqual([]);
    const early = await client.experimental.tasks.getTask(taskId);
    expect(early).toMatchObject({ taskId, status: "working" });

    server.open();
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: "done", text: "Done at last." });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
  }, 60_000);

  it("a task of a run that is neither known here nor in the store is not found", async () => {
    const server = await serveGated("unused");
    const client = await connectMcp(server, null);
    await expect(client.experimental.tasks.getTask("ses_nowhere~0")).rejects.toThrow(/not found/i);
  }, 60_000);
});

import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { openStore } from "../../src/store/open.js";
import { collect, harness, tempDir, transcript } from "../loop/harness.js";
import { askThenKill } from "../loop/killed-asker.js";
import { abortAtFirstProgress, everythingStdio } from "./servers.js";
import { type TaskServer, taskServer } from "./task-server.js";

let server: TaskServer;
beforeEach(async () => {
  server = await taskServer();
});
afterEach(async () => {
  await server.close();
});

const config = () =>
  resolveConfig([{ source: "test", value: { mcp: { servers: { jobs: { url: server.url, timeoutMs: 30_000 } } } } }]);
const taskIdOf = (e: RunEvent) =>
  e.type === "tool_progress" && typeof e.metadata?.taskId === "string" ? e.metadata.taskId : undefined;
const toolEnds = (events: readonly RunEvent[]) => events.flatMap((e) => (e.type === "tool_end" ? [e] : []));
const toolResultsSent = (model: ReturnType<typeof scriptedModel>, index: number) =>
  JSON.stringify(model.calls[index]?.prompt.filter((m) => m.role === "tool"));

describe("MCP tools run as tasks", () => {
  it("a task tool is called as a task: its status is the call's progress, its result comes from tasks/result", async () => {
    const model = scriptedModel([[toolCall("mcp__jobs__slow_job", { label: "report" }, { id: "t1" })], [text("Done.")]]);
    const { runtime } = await harness({ model, config: config() });
    const handle = runtime.runs.run({ prompt: "run the job" });
    const events: RunEvent[] = [];
    for await (const event of handle) {
      events.push(event);
      // The task finishes on the server once the run has seen it working.
      if (taskIdOf(event) !== undefined && events.filter((e) => taskIdOf(e) !== undefined).length === 1) await server.finishAll();
    }
    expect((await handle.result).status).toBe("done");
    const progress = events.filter((e) => taskIdOf(e) !== undefined);
    expect(progress[0]).toMatchObject({ metadata: { taskStatus: "working" } });
    expect(toolEnds(events)).toEqual([expect.objectContaining({ is_error: false, output: "done: report" })]);
    expect(server.created).toBe(1);
  });

  it("an aborted call cancels its task on the server (tasks/cancel)", async () => {
    const model = scriptedModel([[toolCall("mcp__jobs__slow_job", { label: "long" }, { id: "t1" })], [text("unreached")]]);
    const { runtime } = await harness({ model, config: config() });
    const handle = runtime.runs.run({ prompt: "run the job" });
    // The call's first progress is its task's first status.
    const { events } = await abortAtFirstProgress(handle);
    expect((await handle.result).status).toBe("aborted");
    const taskId = events.map(taskIdOf).find((id) => id !== undefined);
    expect(taskId).toBeDefined();
    expect(await server.status(taskId ?? "")).toBe("cancelled");
    expect(server.created).toBe(1);
  });

  it("a run killed (kill -9) while its task worked is resumed by following that task, not by calling the tool again", async () => {
    const dir = join(tempDir(), "store");
    const cwd = tempDir();
    const home = tempDir();
    const [sessionId = ""] = await askThenKill("mcp-task-and-wait.mjs", [dir, cwd, home, server.url]);
    expect(server.created).toBe(1);
    // The task finishes on the server while no Arbor process follows it.
    await server.finishAll();

    const model = scriptedModel([[text("The report job finished.")]]);
    const b = await harness({ store: await openStore(dir), cwd, arborHome: home, model, config: config() });
    const { events, result } = await collect(b.runtime.runs.resume(sessionId));
    expect(result.status).toBe("done");
    expect(toolEnds(events)).toEqual([expect.objectContaining({ is_error: false, output: "done: report" })]);
    expect(toolResultsSent(model, 0)).toContain("done: report");
    // The tool ran once on the server: the resumed run polled the recorded task.
    expect(server.created).toBe(1);
    expect((await transcript(b.store, sessionId)).at(-1)).toContain("The report job finished.");
  });

  it("a task waiting on input (server-everything's simulate-research-query) delivers its elicitation through tasks/result", async () => {
    const model = scriptedModel([
      [toolCall("mcp__ev__simulate-research-query", { topic: "python", ambiguous: true }, { id: "q1" })],
      [text("Researched.")],
    ]);
    const asked: string[] = [];
    const { runtime } = await harness({
      model,
      config: resolveConfig([{ source: "test", value: { mcp: { servers: { ev: everythingStdio() } } } }]),
      onElicitation: async (pending) => {
        if (pending.mode !== "form") return { action: "decline" };
        asked.push(pending.message);
        const field = pending.requestedSchema.properties.interpretation as { oneOf?: { const: string }[] } | undefined;
        return { action: "accept", content: { interpretation: field?.oneOf?.[0]?.const ?? "the language" } };
      },
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "research python" }));
    expect(result.status).toBe("done");
    expect(asked).toEqual([expect.stringContaining("multiple interpretations")]);
    const statuses = events.flatMap((e) => (e.type === "tool_progress" && e.metadata?.taskStatus ? [e.metadata.taskStatus] : []));
    expect(statuses).toContain("input_required");
    const [end] = toolEnds(events);
    expect(end).toMatchObject({ is_error: false });
  }, 60_000);
});

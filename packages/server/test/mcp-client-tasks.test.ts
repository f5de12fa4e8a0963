import { type RunEvent, resolveConfig } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { startServer } from "./helpers/server.js";

const TOKEN = "mcp-task-token";

describe("Arbor's MCP client against Arbor's MCP server: start_run as a task", () => {
  it("calls start_run as a task, follows the run through tasks/get and reads its answer with tasks/result", async () => {
    const remote = await startServer({ script: [[text("The answer is 42.")]], server: { token: TOKEN } });
    const servers = { arbor: { url: `${remote.url}/mcp`, headers: { authorization: `Bearer ${TOKEN}` }, timeoutMs: 30_000 } };
    const local = await startServer({
      script: [[toolCall("mcp__arbor__start_run", { prompt: "What is the answer?" }, { id: "s1" })], [text("It says 42.")]],
      runtime: { config: resolveConfig([{ source: "test", value: { mcp: { servers } } }]) },
    });
    const handle = local.runtime.runs.run({ prompt: "ask the other Arbor" });
    const events: RunEvent[] = [];
    for await (const event of handle) events.push(event);
    expect((await handle.result).status).toBe("done");
    const progress = events.flatMap((e) => (e.type === "tool_progress" ? [e.metadata ?? {}] : []));
    expect(progress[0]).toMatchObject({ taskId: expect.any(String), taskStatus: "working" });
    const [end] = events.flatMap((e) => (e.type === "tool_end" ? [e] : []));
    expect(end).toMatchObject({ is_error: false });
    expect(end?.output).toContain("The answer is 42.");
    // The task is the remote run: one session there, finished.
    const { sessions } = await remote.store.listSessions();
    expect(sessions.map((s) => s.status)).toEqual(["completed"]);
  });
});

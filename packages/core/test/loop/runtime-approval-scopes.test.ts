import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { addToApprovalFile } from "../../src/permissions/approval-file.js";
import { APPROVAL_ENTRY_TYPE } from "../../src/permissions/approvals.js";
import { collect, harness } from "./harness.js";

const bash = (command: string, id: string) => toolCall("bash", { command }, { id });

describe("approvals in a run", () => {
  it("a recorded approval settles asks but never lifts a deny rule", async () => {
    const model = scriptedModel([[bash("echo hi", "b1")], [text("x")]]);
    const { runtime, store } = await harness({ model, permission: { bash: { "*": "ask", "echo hi": "deny" } } });
    const session = await store.createSession({});
    await store.appendEntry(session.id, {
      type: "custom",
      customType: APPROVAL_ENTRY_TYPE,
      data: { agent: "build", permission: "bash", pattern: "echo hi", scope: "session" },
    });
    const { events } = await collect(runtime.runs.run({ sessionId: session.id, prompt: "go" }));
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ is_error: true });
    expect(end?.type === "tool_end" && end.output).toContain("Permission denied");
  });

  it("global and project approvals answer their agent's asks in any session, and only that agent's", async () => {
    const model = scriptedModel([[bash("echo one", "b1"), bash("echo two", "b2")], [text("done")]]);
    const { runtime, cwd, home } = await harness({ model, permission: { bash: "ask" } });
    const places = { workspace: cwd, home };
    addToApprovalFile("global", places, { agent: "build", permission: "bash", pattern: "echo one" }, new Date());
    addToApprovalFile("project", places, { agent: "build", permission: "bash", pattern: "echo two" }, new Date());
    const { events, result } = await collect(runtime.runs.run({ prompt: "go" }));
    expect(result.status).toBe("done");
    expect(events.filter((e) => e.type === "permission_request")).toEqual([]);

    const asked: string[] = [];
    const other = runtime.runs.run({
      prompt: "go",
      agent: "plan",
      model: scriptedModel([[bash("echo one", "b3")], [text("done")]]),
    });
    for await (const event of other) {
      if (event.type !== "permission_request") continue;
      asked.push(...event.patterns);
      runtime.asks.replyPermission(event.id, "once");
    }
    expect(asked).toEqual(["echo one"]);
  });
});

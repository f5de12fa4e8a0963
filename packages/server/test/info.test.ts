import { describe, expect, it } from "vitest";
import { json } from "./helpers/json.js";
import { startServer } from "./helpers/server.js";

describe("GET /api/info", () => {
  it("names the model a run without one gets and the agents a chat may start", async () => {
    const server = await startServer({
      runtime: {
        agents: {
          reviewer: { name: "reviewer", description: "Reviews a change.", mode: "primary", permission: [] },
          helper: { name: "helper", description: "Only for other agents.", mode: "subagent", permission: [] },
        },
      },
    });
    const info = await json<{ default_model: string | null; default_agent: string; agents: Array<{ name: string }> }>(
      server.api("/api/info"),
    );
    expect(info.default_model).toBe("testkit/scripted");
    expect(info.default_agent).toBe("build");
    // Sub-agents and hidden agents (compaction) are refused as a chat's agent, so they are not offered.
    expect(info.agents.map((a) => a.name)).toEqual(["build", "plan", "reviewer"]);
    expect(info.agents.find((a) => a.name === "reviewer")).toEqual({ name: "reviewer", description: "Reviews a change." });
  });

  it("says when no model is configured", async () => {
    const server = await startServer({ runtime: { model: undefined } });
    const info = await json<{ default_model: string | null }>(server.api("/api/info"));
    expect(info.default_model).toBeNull();
  });
});

import { resolveConfig } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { HELPER_AGENTS, helperMentionModels } from "../../core/test/helpers/helper-agent.js";
import { startServer } from "./helpers/server.js";

describe("@<agent> mentions over POST /api/chat", () => {
  it("a chat starting with a configured sub-agent's name hands it the task; the main agent carries on from its report", async () => {
    const config = resolveConfig([{ source: "test", value: { agents: HELPER_AGENTS } }]);
    const { main, helper, model } = helperMentionModels();
    const server = await startServer({ runtime: { config, model } });
    const res = await server.api("/api/chat", { json: { message: "@helper find the config", stream: false } });
    const done = (await res.json()) as { status: string; session_id: string; text: string };
    expect(done).toMatchObject({ status: "done", text: "main read the report" });
    const subs = (await server.store.listSessions({ parentSessionId: done.session_id, limit: 10 })).sessions;
    expect(subs.map((s) => [s.agentId, s.task])).toEqual([["helper", "find the config"]]);
    expect((helper.calls[0]?.options.tools ?? []).map((t) => t.name)).toEqual(["grep"]);
    // A primary agent's name is no mention: the text reaches the model as typed, nothing is started.
    const plain = await server.api("/api/chat", {
      json: { message: "@reviewer have a look", session_id: done.session_id, stream: false },
    });
    expect(((await plain.json()) as { status: string }).status).toBe("done");
    expect((await server.store.listSessions({ parentSessionId: done.session_id, limit: 10 })).sessions).toHaveLength(1);
    expect(JSON.stringify(main.calls[1]?.prompt.at(-1))).toContain("@reviewer have a look");
  });
});

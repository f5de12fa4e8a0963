import { describe, expect, it } from "vitest";
import { agentsFromConfig } from "../../src/agents/from-config.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { remoteAgentToken } from "../../src/llm/a2a/remote-agent.js";
import { expectCode } from "../conformance/sessions-suite.js";

const layer = (agents: unknown) => [{ source: "arbor.json", value: { agents } }];

describe("remote (A2A) agents in arbor.json", () => {
  it("a remote agent is a sub-agent without tools of Arbor's, described by its URL when it says nothing", () => {
    const config = resolveConfig(
      layer({
        researcher: { a2a: { url: "http://127.0.0.1:9/", token: "env:RESEARCH_TOKEN" } },
        critic: { description: "Reviews plans", a2a: { url: "https://critic.example/.well-known/agent-card.json" } },
      }),
    );
    expect(config.agents.researcher).toMatchObject({ mode: "subagent" });
    expect(config.agents.researcher).not.toHaveProperty("preset");
    const agents = agentsFromConfig(config.agents);
    expect(agents.researcher).toMatchObject({
      mode: "subagent",
      tools: [],
      description: "A remote agent (A2A) at http://127.0.0.1:9/",
      a2a: { url: "http://127.0.0.1:9/", token: "env:RESEARCH_TOKEN" },
    });
    expect(agents.critic?.description).toBe("Reviews plans");
  });

  it("bad remote config names the key and what to write instead", async () => {
    const bad = async (agents: unknown) => (await expectCode(() => resolveConfig(layer(agents)), "invalid_config")).message;
    expect(await bad({ r: { a2a: { url: "ftp://host/agent" } } })).toMatch(/agents\.r\.a2a\.url.*http\(s\) URL of an A2A agent/);
    expect(await bad({ r: { a2a: { url: "http://h/", token: "sk-secret" } } })).toMatch(/agents\.r\.a2a\.token.*env:VARIABLE/);
    expect(await bad({ r: { a2a: { url: "http://h/" }, prompt: "You research." } })).toMatch(
      /agents\.r\.prompt.*only for a local agent/,
    );
    expect(await bad({ r: { a2a: { url: "http://h/" }, mode: "primary" } })).toMatch(/agents\.r\.mode.*only as a sub-agent/);
    expect(await bad({ r: { a2a: { url: "http://h/", headers: {} } } })).toMatch(/headers/);
    // A local agent still needs its description.
    expect(await bad({ r: { prompt: "You research." } })).toMatch(/agents\.r\.description/);
  });

  it("the token is read from the variable it names when a task is handed over; unset, the error names it", async () => {
    const config = { url: "http://h/", token: "env:RESEARCH_TOKEN" };
    expect(remoteAgentToken("r", config, { RESEARCH_TOKEN: "t0k" })).toBe("t0k");
    expect(remoteAgentToken("r", { url: "http://h/" }, {})).toBeUndefined();
    const err = await expectCode(() => remoteAgentToken("r", config, {}), "missing_api_key");
    expect(err.message).toMatch(/RESEARCH_TOKEN \(agents\.r\.a2a\.token\)/);
  });
});

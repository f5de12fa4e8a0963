import { describe, expect, it } from "vitest";
import { mcpMentions, parseMcpPromptCommand } from "../../src/mcp/mentions.js";

describe("@server:uri mentions", () => {
  it("attaches mentions of configured servers only, once each, without trailing punctuation", () => {
    const text = "explain @fs:file:///tmp/x.md, then @fs:file:///tmp/x.md and @other:a://b; mail me@fs:file:///no @fs:plain";
    expect(mcpMentions(text, ["fs"])).toEqual([{ mcpResource: { server: "fs", uri: "file:///tmp/x.md" } }]);
    expect(mcpMentions("@docs:demo://a/b?", ["docs", "fs"])).toEqual([{ mcpResource: { server: "docs", uri: "demo://a/b" } }]);
  });
});

describe("/mcp:<server>:<prompt> commands", () => {
  it("reads the server, prompt, k=v arguments (quoted or not) and the remaining words", () => {
    expect(parseMcpPromptCommand(`/mcp:everything:args-prompt city="San Francisco" state=CA please`)).toEqual({
      server: "everything",
      name: "args-prompt",
      arguments: { city: "San Francisco", state: "CA" },
      rest: "please",
    });
    expect(parseMcpPromptCommand("/mcp:a:b")).toEqual({ server: "a", name: "b", arguments: {}, rest: "" });
    expect(parseMcpPromptCommand("/model gpt")).toBeUndefined();
    expect(parseMcpPromptCommand("say /mcp:a:b")).toBeUndefined();
  });
});

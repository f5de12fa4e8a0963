import { describe, expect, it } from "vitest";
import { defaultLocation } from "../src/interop/locations.js";

describe("where each agent keeps its sessions", () => {
  const home = "/home/u";
  it("defaults to each agent's own directory under the home", () => {
    const at = (from: Parameters<typeof defaultLocation>[0]) => defaultLocation(from, { homedir: home, env: {} });
    expect(at("pi")).toBe("/home/u/.pi/agent/sessions");
    expect(at("claude-code")).toBe("/home/u/.claude/projects");
    expect(at("codex")).toBe("/home/u/.codex/sessions");
    expect(at("opencode")).toBe("/home/u/.local/share/opencode/opencode.db");
  });

  it("follows the variables each agent reads to move its home", () => {
    const at = (from: Parameters<typeof defaultLocation>[0], env: Record<string, string>) =>
      defaultLocation(from, { homedir: home, env });
    expect(at("pi", { PI_CODING_AGENT_DIR: "/p" })).toBe("/p/sessions");
    expect(at("pi", { PI_CODING_AGENT_DIR: "/p", PI_CODING_AGENT_SESSION_DIR: "/s" })).toBe("/s");
    expect(at("claude-code", { CLAUDE_CONFIG_DIR: "/c" })).toBe("/c/projects");
    expect(at("codex", { CODEX_HOME: "/x" })).toBe("/x/sessions");
    expect(at("opencode", { XDG_DATA_HOME: "/d" })).toBe("/d/opencode/opencode.db");
  });
});

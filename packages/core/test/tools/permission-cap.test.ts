import { describe, expect, it } from "vitest";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import type { PermissionRule } from "../../src/model/permission-rule.js";
import { createPermissionAsk } from "../../src/permissions/ask.js";
import { capToCaller, disabledTools, evaluate, evaluateRequest, rulesFromConfig } from "../../src/permissions/permission.js";

const plan = agentPermissions({ agent: BUILTIN_AGENTS.plan });
const general = agentPermissions({ agent: BUILTIN_AGENTS.general });

describe("capToCaller: a sub-agent never has more rights than its caller", () => {
  it("a delegate of plan may not edit and must ask for bash, though general alone may do both", () => {
    expect(evaluate(general, "edit", "a.ts")).toBe("allow");
    expect(evaluate(general, "bash", "echo PWNED > file")).toBe("allow");
    const capped = capToCaller(general, plan);
    expect(evaluate(capped, "edit", "a.ts")).toBe("deny");
    expect(evaluate(capped, "bash", "echo PWNED > file")).toBe("ask");
    expect(evaluate(capped, "read", "src/a.ts")).toBe("allow");
    expect(disabledTools(["write", "edit", "read", "bash"], capped)).toEqual(new Set(["write", "edit"]));
  });

  it("keeps the sub-agent's own limits where the caller is wider", () => {
    const explore = agentPermissions({ agent: BUILTIN_AGENTS.explore });
    const capped = capToCaller(explore, agentPermissions({ agent: BUILTIN_AGENTS.build }));
    expect(evaluate(capped, "edit", "a.ts")).toBe("deny");
    expect(evaluate(capped, "read", ".env")).toBe("ask");
    expect(evaluate(capped, "grep", "*")).toBe("allow");
  });

  it("a caller's specific allow after a general deny still counts (levels, not concatenation)", () => {
    const caller = rulesFromConfig({ "*": "allow", edit: { "*": "deny", "src/*": "allow" } });
    const capped = capToCaller(general, caller);
    expect(evaluate(capped, "edit", "src/a.ts")).toBe("allow");
    expect(evaluate(capped, "edit", "README.md")).toBe("deny");
  });

  it("caps nest: a grandchild is held by every level above it", () => {
    const child = capToCaller(general, plan);
    const grandchild = capToCaller(general, child);
    expect(evaluate(grandchild, "edit", "a.ts")).toBe("deny");
    expect(evaluate(grandchild, "bash", "ls")).toBe("ask");
    expect(new Set(grandchild.map((r: PermissionRule) => r.callerLevel))).toEqual(new Set([undefined, 1, 2]));
  });

  it("an always answer settles a caller's ask but never lifts a deny", async () => {
    const replies = ["always"] as const;
    const prompted: string[] = [];
    const { ask } = createPermissionAsk({
      rules: capToCaller(general, [...plan, ...rulesFromConfig({ bash: { "git push *": "deny" } })]),
      prompt: async (request) => {
        prompted.push(request.patterns.join());
        return replies[prompted.length - 1] ?? "reject";
      },
    });
    await expect(ask({ permission: "bash", patterns: ["git status"] })).resolves.toBeUndefined();
    await expect(ask({ permission: "bash", patterns: ["git status"] })).resolves.toBeUndefined();
    await expect(ask({ permission: "bash", patterns: ["git push origin"] })).rejects.toMatchObject({ code: "permission_denied" });
    expect(prompted).toEqual(["git status"]);
    expect(
      evaluateRequest(plan, { permission: "edit", patterns: ["a"] }, [{ permission: "edit", pattern: "*", wildcard: true }]),
    ).toMatchObject({ action: "deny" });
  });
});

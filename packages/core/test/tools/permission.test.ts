import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import { ArborError } from "../../src/errors.js";
import type { PermissionRule } from "../../src/model/permission-rule.js";
import { createPermissionAsk, isPermissionRefusal } from "../../src/permissions/ask.js";
import {
  DEFAULT_RULES,
  disabledTools,
  evaluate,
  evaluateRequest,
  mergeRules,
  PermissionConfigSchema,
  rulesFromConfig,
  traceContextRules,
} from "../../src/permissions/permission.js";
import { wildcardMatch } from "../../src/permissions/wildcard.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

const TOOLS = ["read", "write", "edit", "list", "glob", "grep", "bash", "fetch", "todowrite", "todoread", "skill"];

describe("wildcardMatch", () => {
  it.each([
    ["*", "", true],
    ["*", "anything/at/all", true],
    ["*.env", ".env", true],
    ["*.env", "config/.env", true],
    ["*.env", "/abs/path/.env", true],
    ["*.env", ".envrc", false],
    ["*.env.*", ".env.local", true],
    ["*.env.*", ".env", false],
    ["src/*", "src/a/b.ts", true],
    ["src/*", "lib/src/a.ts", false],
    ["?.ts", "a.ts", true],
    ["?.ts", "ab.ts", false],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXbYY", false],
    ["git *", "git", true],
    ["git *", "git status", true],
    ["git *", "gitk", false],
    ["npm run *", "npm run test -- --watch", true],
    ["exact", "exact", true],
    ["exact", "exactly", false],
    ["[x]", "[x]", true],
    ["a.b", "aXb", false],
  ])("%s matches %s: %s", (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
  });

  it("stays fast on adversarial patterns", () => {
    expect(wildcardMatch(`${"*a".repeat(50)}b`, "a".repeat(5000))).toBe(false);
  });
});

describe("evaluate", () => {
  const rules: PermissionRule[] = rulesFromConfig({
    read: "allow",
    edit: { "*": "ask", "*.ts": "allow", "node_modules/*": "deny" },
  });

  it.each([
    ["read", "anything", "allow"],
    ["edit", "README.md", "ask"],
    ["edit", "src/a.ts", "allow"],
    ["edit", "node_modules/x/index.ts", "deny"],
    ["bash", "ls", "ask"], // no rule matches: ask
  ] as const)("%s %s → %s (last matching rule wins)", (permission, pattern, action) => {
    expect(evaluate(rules, permission, pattern)).toBe(action);
  });

  it("matches the permission name by wildcard too", () => {
    expect(evaluate([{ permission: "todo*", pattern: "*", action: "deny" }], "todowrite", "*")).toBe("deny");
  });

  it("takes the strictest answer over a request's patterns", () => {
    expect(evaluateRequest(rules, { permission: "edit", patterns: ["a.ts", "b.md"] })).toMatchObject({
      action: "ask",
      pattern: "b.md",
    });
    expect(evaluateRequest(rules, { permission: "edit", patterns: ["a.ts", "node_modules/y", "b.md"] })).toMatchObject({
      action: "deny",
      pattern: "node_modules/y",
      rule: { permission: "edit", pattern: "node_modules/*", action: "deny" },
    });
    expect(evaluateRequest(rules, { permission: "edit", patterns: ["a.ts"] }).action).toBe("allow");
    expect(evaluateRequest(rules, { permission: "read", patterns: [] }).action).toBe("allow");
  });
});

describe("defaults", () => {
  it.each([
    ["bash", "rm -rf build", "allow"],
    ["edit", "src/index.ts", "allow"],
    ["read", "src/index.ts", "allow"],
    ["read", ".env", "ask"],
    ["read", "config/.env", "ask"],
    ["read", ".env.local", "ask"],
    ["read", "apps/web/.env.production", "ask"],
    ["read", ".env.example", "allow"],
    ["read", "environment.ts", "allow"],
    ["doom_loop", "read", "ask"],
    ["external_directory", "/etc", "ask"],
    ["anything_new", "*", "allow"],
  ] as const)("%s %s → %s", (permission, pattern, action) => {
    expect(evaluate(DEFAULT_RULES, permission, pattern)).toBe(action);
  });
});

describe("agents", () => {
  const rulesOf = (name: keyof typeof BUILTIN_AGENTS) => agentPermissions({ agent: BUILTIN_AGENTS[name] });

  it.each([
    ["build", "edit", "a.ts", "allow"],
    ["build", "bash", "make", "allow"],
    ["build", "read", ".env", "ask"],
    ["plan", "edit", "a.ts", "deny"],
    ["plan", "bash", "git log", "ask"],
    ["plan", "read", "a.ts", "allow"],
    ["plan", "todowrite", "*", "allow"],
    ["explore", "read", "a.ts", "allow"],
    ["explore", "read", ".env", "ask"],
    ["explore", "read", ".env.example", "allow"],
    ["explore", "grep", "TODO", "allow"],
    ["explore", "glob", "**/*.ts", "allow"],
    ["explore", "list", ".", "allow"],
    ["explore", "edit", "a.ts", "deny"],
    ["explore", "bash", "ls", "deny"],
    ["explore", "fetch", "https://x", "deny"],
    ["explore", "external_directory", "/tmp", "ask"],
    ["explore", "doom_loop", "read", "ask"],
    ["general", "todowrite", "*", "deny"],
    ["general", "bash", "ls", "allow"],
    ["compaction", "read", "a.ts", "deny"],
    ["compaction", "bash", "ls", "deny"],
  ] as const)("%s: %s %s → %s", (agent, permission, pattern, action) => {
    expect(evaluate(rulesOf(agent), permission, pattern)).toBe(action);
  });

  it("hides denied tools from each agent's list", () => {
    expect([...disabledTools(TOOLS, rulesOf("build"))]).toEqual([]);
    expect([...disabledTools(TOOLS, rulesOf("plan"))]).toEqual(["write", "edit"]);
    expect(TOOLS.filter((t) => !disabledTools(TOOLS, rulesOf("explore")).has(t))).toEqual(["read", "list", "glob", "grep"]);
    expect([...disabledTools(TOOLS, rulesOf("general"))]).toEqual(["todowrite", "todoread"]);
    expect(disabledTools(TOOLS, rulesOf("compaction")).size).toBe(TOOLS.length);
  });

  it("keeps a tool listed when it is denied only for some patterns", () => {
    const rules = mergeRules(DEFAULT_RULES, rulesFromConfig({ edit: { "*": "deny", "docs/*": "allow" } }));
    expect(disabledTools(["edit"], rules).size).toBe(0);
    expect(evaluate(rules, "edit", "src/a.ts")).toBe("deny");
  });

  it("are frozen data", () => {
    expect(Object.isFrozen(BUILTIN_AGENTS.plan.permission[0])).toBe(true);
    expect(BUILTIN_AGENTS.compaction).toMatchObject({ mode: "primary", hidden: true });
    expect(BUILTIN_AGENTS.explore.mode).toBe("subagent");
  });
});

describe("merge order: defaults → agent → user config → trace context", () => {
  it("user config overrides the agent, and trace context overrides both", () => {
    const rules = agentPermissions({
      agent: BUILTIN_AGENTS.plan,
      user: { edit: { "docs/*": "allow" }, read: { "*.env": "allow" } },
      trace: { deniedTools: ["read"] },
      toolNames: TOOLS,
    });
    expect(evaluate(rules, "edit", "docs/plan.md")).toBe("allow");
    expect(evaluate(rules, "edit", "src/a.ts")).toBe("deny");
    expect(evaluate(rules, "read", ".env")).toBe("deny");
  });

  it("allowedTools is a whitelist that narrows but never widens", () => {
    const rules = agentPermissions({
      agent: BUILTIN_AGENTS.explore,
      trace: { allowedTools: ["read", "grep", "bash"] },
      toolNames: TOOLS,
    });
    expect(TOOLS.filter((t) => !disabledTools(TOOLS, rules).has(t))).toEqual(["read", "grep"]);
    expect(evaluate(rules, "read", ".env")).toBe("ask"); // protections survive the whitelist
    expect(evaluate(rules, "external_directory", "/tmp")).toBe("ask");
  });

  it("trace rules treat write and edit as one permission", () => {
    expect(traceContextRules({ allowedTools: ["write", "read"] }, TOOLS).map((r) => r.permission)).toEqual([
      "list",
      "glob",
      "grep",
      "bash",
      "fetch",
      "todowrite",
      "todoread",
      "skill",
    ]);
    expect(traceContextRules({ deniedTools: ["write"] }, TOOLS)).toEqual([{ permission: "edit", pattern: "*", action: "deny" }]);
    expect(traceContextRules({ allowedTools: null }, TOOLS)).toEqual([]);
    expect(traceContextRules(undefined, TOOLS)).toEqual([]);
  });

  it("accepts user rules as a list too", () => {
    const rules = agentPermissions({
      agent: BUILTIN_AGENTS.build,
      user: [{ permission: "bash", pattern: "rm *", action: "deny" }],
    });
    expect(evaluate(rules, "bash", "rm -rf /")).toBe("deny");
    expect(evaluate(rules, "bash", "ls")).toBe("allow");
  });
});

describe("config form", () => {
  it("keeps key order as rule order and validates actions", () => {
    expect(rulesFromConfig({ "*": "ask", bash: { "git *": "allow", "git push *": "ask" } })).toEqual([
      { permission: "*", pattern: "*", action: "ask" },
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "bash", pattern: "git push *", action: "ask" },
    ]);
    const bad = PermissionConfigSchema.safeParse({ bash: { "*": "maybe" } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["bash"]);
  });
});

describe("createPermissionAsk", () => {
  it("allows, denies and asks by the rules; an always-answer approves exactly what was asked, never wider", async () => {
    const prompts: string[] = [];
    const replies: Array<"once" | "always" | "reject"> = ["once", "always", "reject"];
    const { ask, approvals } = createPermissionAsk({
      rules: agentPermissions({ agent: BUILTIN_AGENTS.plan }),
      agent: "plan",
      prompt: async (request) => {
        prompts.push(`${request.permission} ${request.patterns.join(" ")}`);
        return replies.shift() ?? "reject";
      },
    });
    await expect(ask({ permission: "read", patterns: ["a.ts"] })).resolves.toBeUndefined();
    await expect(ask({ permission: "edit", patterns: ["a.ts"] })).rejects.toMatchObject({
      code: "permission_denied",
      message:
        'Permission denied for agent plan: edit for "a.ts" is not allowed (rule: edit * → deny). Do not retry it; take another approach or tell the user what you need.',
    });
    await expect(ask({ permission: "bash", patterns: ["git status"] })).resolves.toBeUndefined(); // once
    await expect(ask({ permission: "bash", patterns: ["git log *"] })).resolves.toBeUndefined(); // always
    await expect(ask({ permission: "bash", patterns: ["git log *"] })).resolves.toBeUndefined(); // approved, no prompt
    // The approved text's `*` is a character, not a wildcard: `git log -p` is asked.
    await expect(ask({ permission: "bash", patterns: ["git log -p"] })).rejects.toMatchObject({
      code: "permission_rejected",
      message: 'The user rejected bash for "git log -p". Do not retry it; ask the user how to proceed.',
    });
    expect(prompts).toEqual(["bash git status", "bash git log *", "bash git log -p"]);
    expect(approvals()).toEqual([{ permission: "bash", pattern: "git log *" }]);
  });

  it("drives the tools: reading .env asks under the default rules", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, ".env"), "KEY=1");
    writeFileSync(join(cwd, ".env.example"), "KEY=");
    const prompted: string[] = [];
    const { ask } = createPermissionAsk({
      rules: agentPermissions({ agent: BUILTIN_AGENTS.build }),
      prompt: async (request) => {
        prompted.push(request.patterns.join());
        return "reject";
      },
    });
    const ctx = { ...fakeContext(cwd), ask };
    const registry = new ToolRegistry().register(readTool());
    expect((await registry.invoke("read", { path: ".env.example" }, ctx)).isError).toBe(false);
    expect(await registry.invoke("read", { path: ".env" }, ctx)).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(prompted).toEqual([".env"]);
  });

  it("isPermissionRefusal recognises both refusals and nothing else", () => {
    expect(isPermissionRefusal(new ArborError("permission_denied", "x"))).toBe(true);
    expect(isPermissionRefusal(new ArborError("permission_rejected", "x"))).toBe(true);
    expect(isPermissionRefusal(new ArborError("tool_failed", "x"))).toBe(false);
    expect(isPermissionRefusal(new Error("permission_denied"))).toBe(false);
  });
});

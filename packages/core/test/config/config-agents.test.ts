import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, taskModels, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { agentsFromConfig } from "../../src/agents/from-config.js";
import { agentPermissions } from "../../src/agents/presets.js";
import { loadConfig } from "../../src/config/load.js";
import { evaluate } from "../../src/permissions/permission.js";
import { expectCode } from "../conformance/sessions-suite.js";
import { HELPER_AGENTS, helperMentionModels } from "../helpers/helper-agent.js";
import { collect, harness } from "../loop/harness.js";
import { useConfigDirs } from "./dirs.js";

const dirs = useConfigDirs();

const load = () => loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } });
const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value));

describe("agents and permission rules in arbor.json", () => {
  it("loads agents from home and workspace, reading promptFile relative to the file naming it", () => {
    mkdirSync(join(dirs.cwd, "prompts"));
    writeFileSync(join(dirs.cwd, "prompts", "reviewer.md"), "You review diffs and never edit.\n");
    writeJson(join(dirs.home, "arbor.json"), {
      agents: { scribe: { description: "Writes notes", prompt: "You write notes.", mode: "subagent" } },
    });
    writeJson(join(dirs.cwd, "arbor.json"), {
      permission: { bash: { "*": "ask", "git status*": "allow" } },
      agents: {
        reviewer: {
          description: "Reviews changes",
          promptFile: "prompts/reviewer.md",
          model: "openai/gpt-4o-mini",
          thinking: "high",
          tools: ["read", "grep", "bash"],
          preset: "plan",
          permission: { bash: { "git diff*": "allow" } },
        },
      },
    });
    const config = load();
    expect(config.agents.reviewer).toMatchObject({ prompt: "You review diffs and never edit.\n", mode: "primary" });
    expect(config.agents.reviewer).not.toHaveProperty("promptFile");
    expect(config.agents.scribe).toMatchObject({ mode: "subagent", preset: "build" });

    const agents = agentsFromConfig(config.agents);
    expect(agents.reviewer).toMatchObject({
      name: "reviewer",
      model: "openai/gpt-4o-mini",
      thinking: "high",
      tools: ["read", "grep", "bash"],
    });
    const rules = agentPermissions({
      agent: agents.reviewer!,
      user: config.permission,
      toolNames: ["read", "grep", "bash", "write", "edit", "fetch"],
    });
    // Global rules ask for bash except git status; the agent's own rule allows git diff too.
    expect(evaluate(rules, "bash", "git status")).toBe("allow");
    expect(evaluate(rules, "bash", "git diff HEAD")).toBe("allow");
    expect(evaluate(rules, "bash", "rm -rf build")).toBe("ask");
    // The plan preset denies edits; the tool list denies what it leaves out.
    expect(evaluate(rules, "edit", "src/a.ts")).toBe("deny");
    expect(evaluate(rules, "fetch", "https://example.com")).toBe("deny");
    expect(evaluate(rules, "read", "src/a.ts")).toBe("allow");
  });

  it.each([
    [{ agents: { reviewer: { description: "x", colour: "red" } } }, /arbor\.json: .*"colour"/],
    [{ agents: { reviewer: { prompt: "x" } } }, /arbor\.json: .*agents\.reviewer\.description/],
    [{ agents: { reviewer: { description: "x", mode: "boss" } } }, /arbor\.json: .*agents\.reviewer\.mode/],
    [{ agents: { reviewer: { description: "x", preset: "root" } } }, /arbor\.json: .*agents\.reviewer\.preset/],
    [{ agents: { reviewer: { description: "x", tools: "read" } } }, /arbor\.json: .*agents\.reviewer\.tools/],
    [{ agents: { "9lives": { description: "x" } } }, /arbor\.json: .*agents/],
    [{ permission: { bash: "maybe" } }, /arbor\.json: .*permission\.bash/],
    [
      { agents: { r: { description: "x", permission: { bash: { "*": "sometimes" } } } } },
      /arbor\.json: .*agents\.r\.permission\.bash/,
    ],
    [{ agents: { r: { description: "x", prompt: "a", promptFile: "p.md" } } }, /arbor\.json: .*agents\.r\.promptFile.*not both/],
  ])("rejects %j with an error naming the file and key", async (value, message) => {
    writeFileSync(join(dirs.cwd, "p.md"), "prompt");
    writeJson(join(dirs.cwd, "arbor.json"), value);
    const err = await expectCode(() => load(), "invalid_config");
    expect(err.message).toMatch(message);
    expect(err.message).toContain(join(dirs.cwd, "arbor.json"));
  });

  it("names the file, key and path of a promptFile it cannot read, or that is empty", async () => {
    writeJson(join(dirs.home, "arbor.json"), { agents: { reviewer: { description: "x", promptFile: "missing.md" } } });
    let err = await expectCode(() => load(), "invalid_config");
    expect(err.message).toContain(
      `${join(dirs.home, "arbor.json")}: agents.reviewer.promptFile: cannot read ${join(dirs.home, "missing.md")}`,
    );
    writeFileSync(join(dirs.home, "missing.md"), "  \n");
    err = await expectCode(() => load(), "invalid_config");
    expect(err.message).toContain("is empty");
  });

  it("runs a configured agent: its prompt, its tools and its model; an unknown agent lists the known ones", async () => {
    writeJson(join(dirs.cwd, "arbor.json"), {
      agents: {
        reviewer: { description: "Reviews changes", prompt: "You are the reviewer agent.", tools: ["read", "grep"] },
        helper: { description: "Only a sub-agent", prompt: "x", mode: "subagent" },
      },
    });
    const config = load();
    const model = scriptedModel([[text("Looks fine.")]]);
    const { runtime, store } = await harness({ model, config });
    const { result } = await collect(runtime.runs.run({ prompt: "review", agent: "reviewer" }));
    expect(result.status).toBe("done");
    const system = model.calls[0]?.prompt[0];
    expect(system?.role === "system" && system.content).toContain("You are the reviewer agent.");
    expect((model.calls[0]?.options.tools ?? []).map((t) => t.name).sort()).toEqual(["grep", "read"]);
    expect((await store.getSession(result.sessionId))?.agentId).toBe("reviewer");

    const before = (await store.listSessions({ limit: 100 })).sessions.length;
    const unknown = await runtime.runs.run({ prompt: "review", agent: "reviewr" }).result;
    expect(unknown.status).toBe("error");
    expect(unknown.error?.code).toBe("invalid_input");
    expect(unknown.error?.message).toMatch(/Unknown agent "reviewr"\. Agents you can run: .*build.*reviewer/);
    expect(unknown.error?.message).not.toContain("helper");
    // Agents made for sub-traces (a subagent-mode one, explore, the hidden compaction) are refused as a session's own.
    for (const name of ["helper", "explore", "compaction"]) {
      const refused = await runtime.runs.run({ prompt: "review", agent: name }).result;
      expect(refused.error?.code).toBe("invalid_input");
      expect(refused.error?.message).toMatch(
        new RegExp(`Agent "${name}" runs only when another agent starts it .*Agents you can run: .*build.*reviewer`),
      );
    }
    expect((await store.listSessions({ limit: 100 })).sessions.length).toBe(before);
  });

  it("a delegate may name a configured sub-agent; a name that is not one is answered with the choices and starts nothing", async () => {
    writeJson(join(dirs.cwd, "arbor.json"), { agents: HELPER_AGENTS });
    const main = scriptedModel([
      [toolCall("delegate", { task: "find it", agent: "reviewer" })],
      [toolCall("delegate", { task: "find it", agent: "helper" })],
      [text("main done")],
    ]);
    const helper = scriptedModel([[text("found it")]]);
    const model = taskModels(main, { "find it": helper });
    const { runtime, store } = await harness({ model, config: load() });
    const { result } = await collect(runtime.runs.run({ prompt: "go" }));
    expect(result.status).toBe("done");

    const refused = JSON.stringify(main.calls[1]?.prompt.filter((m) => m.role === "tool").at(-1));
    expect(refused).toContain('agent=\\"reviewer\\" is not a sub-agent you can delegate to. Use one of: general, helper');
    const subs = (await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions;
    expect(subs).toHaveLength(1);
    expect(subs[0]?.agentId).toBe("helper");
    const system = helper.calls[0]?.prompt[0];
    expect(system?.role === "system" && system.content).toContain("You are the helper sub-agent.");
    expect((helper.calls[0]?.options.tools ?? []).map((t) => t.name)).toEqual(["grep"]);
  });

  it("@<name> at the start of a prompt hands the task to that configured sub-agent; a primary agent's name is plain text", async () => {
    writeJson(join(dirs.cwd, "arbor.json"), { agents: HELPER_AGENTS });
    const { main, model } = helperMentionModels();
    const { runtime, store } = await harness({ model, config: load() });
    const { result } = await collect(runtime.runs.run({ prompt: "@helper find the config" }));
    expect(result.status).toBe("done");
    const subs = (await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions;
    expect(subs.map((s) => [s.agentId, s.task])).toEqual([["helper", "find the config"]]);
    expect(JSON.stringify(main.calls[0]?.prompt.at(-1))).toContain("found it");
    // Not a sub-agent: the prompt reaches the model as typed, and nothing is started.
    const plain = await collect(runtime.runs.run({ prompt: "@reviewer have a look", sessionId: result.sessionId }));
    expect(plain.result.status).toBe("done");
    expect((await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions).toHaveLength(1);
    expect(JSON.stringify(main.calls[1]?.prompt.at(-1))).toContain("@reviewer have a look");
  });

  it("the delegate tool's description lists the sub-agents a call may name, with what each is for", async () => {
    writeJson(join(dirs.cwd, "arbor.json"), {
      agents: {
        helper: { description: "Greps only,\n  never edits", prompt: "You are the helper sub-agent.", mode: "subagent" },
        docs: { description: "Writes documentation", mode: "all" },
        reviewer: { description: "A primary agent", prompt: "x" },
        secret: { description: "Not offered", mode: "subagent" },
      },
    });
    const config = load();
    const model = scriptedModel([[text("done")]]);
    const { runtime } = await harness({
      model,
      config,
      // An agent hidden from users is not offered either, as the check of a call refuses it.
      agents: { secret: { ...agentsFromConfig(config.agents).secret!, hidden: true } },
    });
    await collect(runtime.runs.run({ prompt: "go" }));
    const delegate = model.calls[0]?.options.tools?.find((t) => t.name === "delegate");
    const description = delegate && "description" in delegate ? delegate.description : undefined;
    expect(description).toContain("You get its final report.");
    const listed = description?.split("\n").filter((line) => line.startsWith("- "));
    expect(listed).toEqual([
      "- general (the default): A general-purpose sub-agent for multi-step research or work handed over by another agent.",
      "- helper: Greps only, never edits",
      "- docs: Writes documentation",
    ]);
  });

  it("without configured sub-agents the delegate description is the plain one", async () => {
    const model = scriptedModel([[text("done")]]);
    const { runtime } = await harness({ model, config: load() });
    await collect(runtime.runs.run({ prompt: "go" }));
    const delegate = model.calls[0]?.options.tools?.find((t) => t.name === "delegate");
    const description = delegate && "description" in delegate ? delegate.description : "";
    expect(description).toContain("You get its final report.");
    expect(description).not.toContain("Sub-agents to choose from");
  });
});

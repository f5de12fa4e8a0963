import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { envLayer, resolveConfig } from "../../src/config/resolve.js";
import { costOf, modelInfo } from "../../src/llm/catalog.js";
import { parseModelRef } from "../../src/llm/model-ref.js";
import { expectCode } from "../conformance/sessions-suite.js";
import { useConfigDirs } from "./dirs.js";

const dirs = useConfigDirs();

describe("configuration", () => {
  it("has the documented defaults", () => {
    const c = loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } });
    expect(c).toMatchObject({
      llm: { temperature: 0.7, maxTokens: 4096 },
      agent: { recursionLimit: 100 },
      cache: { enabled: false, ttl: 86_400 },
      plan: { enabled: true, revisionEnabled: true, requireApproval: false, maxSteps: 8 },
      mcp: { enabled: true, toolCacheTtl: 3600 },
      security: { enabled: true, rules: [], disabledRules: [], injectionTools: ["fetch"] },
      memory: { maxPromptTokens: 4000, autoExtract: false, dailyLogDays: 2 },
      maxPromptChars: 20_000,
      models: {},
      pool: {},
    });
  });

  it("reads the memory and security variables", () => {
    const env = {
      ARBOR_HOME: dirs.home,
      MEMORY_MAX_PROMPT_TOKENS: "1500",
      MEMORY_AUTO_EXTRACT: "true",
      SECURITY_ENABLED: "false",
    };
    const c = loadConfig({ cwd: dirs.cwd, env });
    expect(c.memory).toMatchObject({ maxPromptTokens: 1500, autoExtract: true });
    expect(c.security.enabled).toBe(false);
  });

  it("layers home, models.json, workspace, environment and flags in that order", () => {
    writeFileSync(
      join(dirs.home, "arbor.json"),
      JSON.stringify({ model: "openai/gpt-4o", plan: { maxSteps: 3 }, llm: { temperature: 0.1 } }),
    );
    writeFileSync(join(dirs.home, "models.json"), JSON.stringify({ pool: { compaction: { model: "openai/gpt-4o-mini" } } }));
    writeFileSync(join(dirs.cwd, "arbor.json"), JSON.stringify({ plan: { requireApproval: true }, llm: { temperature: 0.2 } }));
    const env = { ARBOR_HOME: dirs.home, LLM_TEMPERATURE: "0.3", PLAN_MAX_STEPS: "5", ENABLE_LLM_CACHE: "true" };
    const c = loadConfig({ cwd: dirs.cwd, env, overrides: { model: "anthropic/claude-sonnet-4-5" } });
    expect(c.model).toBe("anthropic/claude-sonnet-4-5");
    expect(c.llm.temperature).toBe(0.3);
    expect(c.plan).toEqual({ enabled: true, revisionEnabled: true, requireApproval: true, maxSteps: 5 });
    expect(c.cache.enabled).toBe(true);
    expect(c.pool.compaction?.model).toBe("openai/gpt-4o-mini");
  });

  it("names the file and key of a bad setting", async () => {
    writeFileSync(join(dirs.cwd, "arbor.json"), JSON.stringify({ plan: { maxStep: 3 } }));
    const err = await expectCode(() => loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } }), "invalid_config");
    expect(err.message).toContain(join(dirs.cwd, "arbor.json"));
    expect(err.message).toContain("maxStep");
    writeFileSync(join(dirs.cwd, "arbor.json"), JSON.stringify({ llm: { temperature: "hot" } }));
    expect(
      (await expectCode(() => loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } }), "invalid_config")).message,
    ).toMatch(/llm\.temperature/);
    writeFileSync(join(dirs.cwd, "arbor.json"), "{ nope");
    expect(
      (await expectCode(() => loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } }), "invalid_config")).message,
    ).toMatch(/not valid JSON/);
  });

  it("says which values a key allows, and which key a typo meant", () => {
    const fail = (value: unknown) => {
      try {
        resolveConfig([{ source: "arbor.json", value }]);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error("the config was accepted");
    };
    expect(fail({ permission: { bash: "sometimes" } })).toBe(
      'arbor.json: permission.bash: Invalid value: expected one of "allow", "ask", "deny", or an object',
    );
    // An object of patterns is the other form: its own bad value is named where it is.
    expect(fail({ permission: { bash: { "rm *": "maybe" } } })).toMatch(
      /^arbor\.json: permission\.bash\.rm \*: Invalid option: expected one of "allow"\|"ask"\|"deny"$/,
    );
    expect(fail({ permision: { bash: "allow" } })).toBe('arbor.json: Unrecognized key: "permision" (did you mean "permission"?)');
    expect(fail({ plan: { maxStep: 3 } })).toBe('arbor.json: plan: Unrecognized key: "maxStep" (did you mean "maxSteps"?)');
    expect(fail({ plan: { zzzz: 3 } })).toMatch(/^arbor\.json: plan: Unrecognized key: "zzzz" \(known keys: .*maxSteps/);
  });

  it("names the environment variable of a bad value", async () => {
    expect((await expectCode(() => envLayer({ PLAN_MAX_STEPS: "many" }), "invalid_config")).message).toMatch(
      /PLAN_MAX_STEPS.*whole number/,
    );
    expect((await expectCode(() => envLayer({ ENABLE_LLM_CACHE: "maybe" }), "invalid_config")).message).toMatch(
      /ENABLE_LLM_CACHE/,
    );
    expect((await expectCode(() => resolveConfig([envLayer({ PLAN_MAX_STEPS: "0" })]), "invalid_config")).message).toMatch(
      /environment: PLAN_MAX_STEPS: Too small/,
    );
  });
});

describe("thinking in the config", () => {
  it("takes a level or a token budget from arbor.json and ARBOR_THINKING, and refuses anything else", async () => {
    writeFileSync(join(dirs.cwd, "arbor.json"), JSON.stringify({ thinking: 8000 }));
    expect(loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } }).thinking).toBe(8000);
    expect(loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home, ARBOR_THINKING: "2048" } }).thinking).toBe(2048);
    expect(loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home, ARBOR_THINKING: "low" } }).thinking).toBe("low");
    for (const bad of [0, 1.5, "lots"]) {
      writeFileSync(join(dirs.cwd, "arbor.json"), JSON.stringify({ thinking: bad }));
      const err = await expectCode(() => loadConfig({ cwd: dirs.cwd, env: { ARBOR_HOME: dirs.home } }), "invalid_config");
      expect(err.message).toContain("thinking");
    }
  });
});

describe("models", () => {
  it("parses provider/model strings and refuses bad ones", async () => {
    expect(parseModelRef("openai/gpt-4o")).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(parseModelRef("openai-compatible/meta/llama-3")).toEqual({ provider: "openai-compatible", model: "meta/llama-3" });
    for (const bad of ["gpt-4o", "/x", "openai/", ""]) await expectCode(() => parseModelRef(bad), "invalid_model");
    // Mistral became a provider of its own; Cohere is not one (yet).
    expect((await expectCode(() => parseModelRef("cohere/command-r"), "invalid_model")).message).toMatch(
      /Unknown provider "cohere"/,
    );
  });

  it("looks models up with overrides over the built-in catalog", () => {
    expect(modelInfo("openai/gpt-4o").limit.context).toBe(128_000);
    expect(modelInfo("openai-compatible/llama3").limit).toEqual({ context: 128_000, output: 4_096 });
    const custom = { "openai/gpt-4o": { limit: { context: 1000, output: 100 } } };
    expect(modelInfo("openai/gpt-4o", custom).limit.context).toBe(1000);
  });

  it("prices usage with cache rates", () => {
    const cost = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(costOf({ input: 1_000_000, output: 0 }, cost)).toBeCloseTo(3);
    expect(costOf({ input: 1_000_000, output: 1_000_000, cacheRead: 500_000 }, cost)).toBeCloseTo(1.5 + 0.15 + 15);
    expect(costOf({ input: 10, output: 10 }, undefined)).toBe(0);
  });
});

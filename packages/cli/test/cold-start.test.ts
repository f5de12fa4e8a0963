import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { IMPORT_SOURCES } from "@arbor/core/interop";
import { ScopeSchema } from "@arbor/core/store";
import { startFakeOpenAI, text } from "@arbor/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { IMPORT_SOURCE_NAMES } from "../src/commands/sessions-import.js";
import { TOKEN_SCOPES } from "../src/commands/token-scopes.js";
import { ARBOR_BIN, arbor } from "./helpers/cli.js";

const TRACE_HOOK = fileURLToPath(new URL("./helpers/module-trace.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "arbor-cold-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The modules the built `arbor …` resolved from start to exit (node: built-ins left out). */
function modulesLoadedBy(args: string[]): { code: number | null; stdout: string; modules: string[] } {
  const trace = join(dir, `trace-${args.join("-")}.txt`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ARBOR_")) env[k] = v;
  Object.assign(env, { ARBOR_HOME: join(dir, "home"), ARBOR_TEST_MODULE_TRACE: trace });
  const child = spawnSync(process.execPath, ["--import", TRACE_HOOK, ARBOR_BIN, ...args], { env, encoding: "utf8" });
  const modules = readFileSync(trace, "utf8")
    .split("\n")
    .filter((url) => url !== "" && !url.startsWith("node:"));
  return { code: child.status, stdout: child.stdout, modules };
}

/** What a command that does not use them must never load: each costs start-up time and memory. */
const HEAVY = [
  "/node_modules/pg/",
  "/node_modules/pg-boss/",
  "/node_modules/better-sqlite3/",
  "/node_modules/mysql2/",
  "/node_modules/@modelcontextprotocol/sdk/",
  "/node_modules/@a2a-js/sdk/",
  "/node_modules/@opentelemetry/",
  "/node_modules/ai/",
  // Provider SDKs (the small @ai-sdk/provider holds only error classes and types).
  "/node_modules/@ai-sdk/openai",
  "/node_modules/@ai-sdk/anthropic",
  "/node_modules/@ai-sdk/google",
  "/node_modules/hono/",
  "/node_modules/ws/",
  // Loaded on first use: the bash grammar when a command is analysed, the search index when memory or
  // the knowledge base is searched.
  "/node_modules/web-tree-sitter/",
  "/node_modules/minisearch/",
  "/node_modules/ink/",
  "/node_modules/react/",
  "/packages/server/",
];

/** What `arbor run` with an OpenAI-compatible model must not load before its first request. */
const RUN_UNUSED = [
  ...HEAVY.filter((heavy) => !heavy.startsWith("/node_modules/@ai-sdk/")),
  "/node_modules/@ai-sdk/openai/",
  "/node_modules/@ai-sdk/anthropic/",
  "/node_modules/@ai-sdk/google/",
  "/node_modules/@ai-sdk/amazon-bedrock/",
];

/**
 * Core's code a run loads when it first uses it, never before its first model request: the MCP
 * manager and its connections (no server is configured here), the knowledge base, memory search,
 * the HTML reader, the Python process and the sandbox's egress proxy. Core is loaded from its bundle
 * (packages/core/dist-bundle), whose chunks are named after their first module: each name here must
 * start one of its files, so the check cannot pass by naming nothing.
 */
const RUN_LATER = ["manager-", "knowledge-base-", "memory-search-", "html-to-text-", "python-process-", "egress-proxy-"];
/** The command line's own modules a run loads when it first uses them: the MCP login's listener (and node:http). */
const RUN_LATER_CLI = ["/packages/cli/dist/mcp/loopback.js"];

const BUNDLE = fileURLToPath(new URL("../../core/dist-bundle/", import.meta.url));

/** The files of core's bundle among `modules`, by name. */
function coreFiles(modules: readonly string[]): string[] {
  // Core is loaded from its bundle only: a module of its unbundled build beside it would be a second copy.
  expect(modules.filter((url) => url.includes("/packages/core/dist/"))).toEqual([]);
  return modules.filter((url) => url.includes("/packages/core/dist-bundle/")).map((url) => url.replace(/.*\/dist-bundle\//, ""));
}

describe("cold start: what a command loads", () => {
  it("`arbor --version` and `arbor --help` load only the command line's own modules: no dependency, not even core", () => {
    for (const args of [["--version"], ["--help"]]) {
      const { code, stdout, modules } = modulesLoadedBy(args);
      expect(code, args.join(" ")).toBe(0);
      expect(stdout, args.join(" ")).not.toBe("");
      const foreign = modules.filter((url) => !url.includes("/packages/cli/"));
      expect(foreign, `${args.join(" ")} loaded these`).toEqual([]);
    }
  });

  it("`arbor sessions list` on an empty file store loads no SQL driver, queue, MCP, telemetry, provider, server, shell grammar or search index", () => {
    const { code, stdout, modules } = modulesLoadedBy(["sessions", "list"]);
    expect(code).toBe(0);
    expect(stdout).toContain("No sessions");
    expect(modules.some((url) => url.includes("/packages/core/"))).toBe(true);
    expect(modules.filter((url) => HEAVY.some((heavy) => url.includes(heavy)))).toEqual([]);
  });

  it("`arbor sessions list` on an empty file store loads no validation library: it reads no record, so it validates none", () => {
    const { code, stdout, modules } = modulesLoadedBy(["sessions", "list"]);
    expect(code).toBe(0);
    expect(stdout).toContain("No sessions");
    // zod and the schemas built with it cost more start-up time and memory than the rest of the command.
    expect(modules.filter((url) => url.includes("/node_modules/zod/"))).toEqual([]);
  });

  it("`arbor sessions list` reaches the store without core's root entry or the runtime behind it", () => {
    const { code, modules } = modulesLoadedBy(["sessions", "list"]);
    expect(code).toBe(0);
    const core = coreFiles(modules);
    expect(core.length).toBeGreaterThan(0);
    // The root entry gathers createRuntime, and with it the loop, the tools, models and the knowledge base.
    expect(core).not.toContain("index.js");
    // A few small files (the file store, the store spec): the runtime is most of the bundle's bytes.
    const bytes = (names: readonly string[]) => names.reduce((sum, name) => sum + statSync(join(BUNDLE, name)).size, 0);
    const all = readdirSync(BUNDLE).filter((name) => name.endsWith(".js"));
    expect(bytes(core)).toBeLessThan(bytes(all) / 10);
  });

  it("`arbor run` loads, before its first model request, only its own provider: no other provider, SQL driver, MCP, telemetry, server, shell grammar, search index or zod locale but English", async () => {
    const trace = join(dir, "trace-run.txt");
    const work = join(dir, "work");
    mkdirSync(work, { recursive: true });
    const fake = await startFakeOpenAI({ script: [[text("ok")]] });
    try {
      const r = await arbor(["run", "--model", "openai-compatible/fake", "--base-url", fake.baseURL, "--cwd", work, "say ok"], {
        home: join(dir, "home"),
        env: {
          NODE_OPTIONS: `--import ${TRACE_HOOK}`,
          ARBOR_TEST_MODULE_TRACE: trace,
          ARBOR_TEST_MODULE_TRACE_AT: "fetch",
        },
      });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await fake.close();
    }
    const modules = readFileSync(trace, "utf8").split("\n");
    expect(modules.some((url) => url.includes("/node_modules/@ai-sdk/openai-compatible/"))).toBe(true);
    expect(modules.filter((url) => RUN_UNUSED.some((heavy) => url.includes(heavy)))).toEqual([]);
    const bundleFiles = readdirSync(BUNDLE);
    for (const later of RUN_LATER)
      expect(bundleFiles.filter((name) => name.startsWith(later) && name.endsWith(".js"))).toHaveLength(1);
    expect(coreFiles(modules).filter((name) => RUN_LATER.some((later) => name.startsWith(later)))).toEqual([]);
    expect(modules.filter((url) => RUN_LATER_CLI.some((later) => url.endsWith(later)))).toEqual([]);
    // zod's English locale only, not the ~60 of its `z.locales` namespace (the trace sees the
    // namespace's URL resolved before the launcher's hook puts the stand-in in its place).
    const locales = modules.filter((url) => url.includes("/node_modules/zod/v4/locales/") && !url.endsWith("/index.js"));
    expect(locales.map((url) => url.replace(/.*\/locales\//, ""))).toEqual(["en.js"]);
  });

  it("knows the scopes `tokens add --scope` takes as core does (its flags are checked without loading the store)", () => {
    expect([...TOKEN_SCOPES]).toEqual([...ScopeSchema.options]);
  });

  it("names the agents `sessions import --from` reads as core does (help lists them without loading the importers)", () => {
    expect([...IMPORT_SOURCE_NAMES]).toEqual([...IMPORT_SOURCES]);
  });
});

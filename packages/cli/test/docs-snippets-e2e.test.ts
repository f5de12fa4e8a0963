import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { ConfigSchema, loadConfig } from "@arbor/core";
import {
  type FakeOpenAIServer,
  type ProviderWire,
  type RecordedReply,
  recordedStream,
  type Script,
  startFakeOpenAI,
  startRecordedProvider,
  text,
  toolCall,
} from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ENV_KEYS } from "../../core/src/config/schema.js";
import { BUILTIN_MODELS } from "../../core/src/llm/catalog.js";
import { ARBOR_BIN, REPO_ROOT, type RunningCli, startArbor } from "./helpers/cli.js";

/**
 * The documentation's shell snippets, run as a newcomer would paste them: every ```sh block of the
 * README, the CLI's README and docs/*.md, one document's blocks in order as one bash script (so a
 * variable set in one block is there in the next), in a fresh workspace where `arbor` (on the PATH,
 * as `npm run setup` puts it) and `npx arbor` are this checkout's CLI, against the fake OpenAI server. A block after `<!-- docs-test: skip (why) -->` is
 * not run; synopses with placeholders are ```text blocks or carry that marker.
 */

interface Block {
  doc: string;
  line: number;
  /** The bash that runs the block. */
  code: string;
}

const SKIP = /^<!--\s*docs-test:\s*skip\b/;
/** A code block (```ts, ```js) the test saves under this name and runs with node, where the shell is at that point. */
const RUN_AS = /^<!--\s*docs-test:\s*run as (\S+\.m?js)\s*-->$/;
/** Where the README says to put the path of a checkout of Arbor. */
const CHECKOUT_PLACEHOLDER = /\/path\/to\/arbor/g;

export function shellBlocks(doc: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) body.push(lines[i] as string);
    const before = (lines[start - 1] ?? "").trim();
    const runAs = RUN_AS.exec(before)?.[1];
    const code = body.join("\n");
    if (runAs !== undefined) {
      blocks.push({ doc, line: start + 1, code: `cat > ${runAs} <<'ARBOR_DOCS_EOF'\n${code}\nARBOR_DOCS_EOF\nnode ${runAs}` });
    } else if (["sh", "bash", "shell"].includes(open[1] as string) && !SKIP.test(before)) {
      blocks.push({ doc, line: start + 1, code: code.replace(CHECKOUT_PLACEHOLDER, REPO_ROOT.replace(/\/$/, "")) });
    }
  }
  return blocks;
}

const DOCS = [
  "README.md",
  "packages/cli/README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** What the scripted model answers, per document: plain answers unless the snippets need a tool call. */
const SCRIPTS: Record<string, Script> = {
  "docs/http-api.md": [
    [text("Hello there, nice to meet.")],
    [text("Bonjour, ravi de vous rencontrer.")],
    [toolCall("read", { path: ".env" })],
    [text("It sets GREETING to hello.")],
  ],
};
/** What a document's snippets must print besides exiting 0, where their exit code alone proves little. */
const EXPECTED: Record<string, RegExp[]> = {
  "README.md": [/Done \(1\)\.\ndone: \d+ tokens in, \d+ out/, /\d+ entries, \d+ on the active path/],
  "docs/http-api.md": [/"type":"done"/, /"reply":"once"/],
  // The run in the other workspace handed its task to the served Arbor over A2A: a sub-trace under it.
  "docs/a2a.md": [
    /"name":"Arbor"/,
    /TASK_STATE_COMPLETED/,
    /└ \S+@delegate-\S+ .*\[delegate, completed\] Say hi in three words\./,
  ],
  "docs/ag-ui.md": [
    /"identity":\{"name":"Arbor"/,
    /"type":"RUN_STARTED"/,
    /"type":"TEXT_MESSAGE_CONTENT"/,
    /"type":"RUN_FINISHED"/,
  ],
  "docs/acp.md": [/session \S+, modes: build, plan/, /Done \(1\)\.\nstop: end_turn/],
  "docs/open-responses.md": [/"id":"build","object":"model"/, /"status":"completed"/, /event: response\.completed/],
  // The demo's session, moved into the SQLite store, shows there with its whole path.
  "packages/cli/README.md": [/status +completed\n[\s\S]*Active path \(\d+ entries, root first\)/],
  // Each recipe's model answered, as the recorded stream of its provider's wire says.
  "docs/providers.md": [
    /READY/,
    /Hello! I'm doing well/,
    /There are \*\*3\*\*/,
    /I could not reach the weather service\.[\s\S]*I could not reach[\s\S]*I could not reach/,
  ],
  // Each variable that names a folder is read: the import names the folder it came from.
  "docs/configuration.md": [
    /error: Environment variable LLM_MAX_TOKENS: expected a whole number, got "lots"/,
    /No sessions\./,
    /from pi \(\S+\/pi-agent\/sessions\)[\s\S]*from pi \(\S+\/pi-agent\/sessions\)/,
    /from claude-code \(\S+\/claude-config\/projects\)/,
    /from codex \(\S+\/codex-home\/sessions\)/,
  ],
  // Two prompts after the first one's answer: a branch the tree shows, and a fork listed as a session of its own.
  // The rivers prompt opens the side branch, or follows a patch entry there: the first run's `--json`
  // output goes to run.jsonl in the workspace while its first snapshot is being taken, so whether the
  // step's patch holds that file depends on which came first.
  "docs/concepts.md": [
    /[│├]─? +\w+ user: Now one about rivers/,
    /The branches share 2 entries/,
    /└─ \* \w+ user: Make it a limerick instead/,
    /Forked session/,
  ],
};
/**
 * The provider recipes run against loopback servers replaying each provider's recorded answers over
 * its own wire, reached through the provider's base-URL variable as the recipes leave it unset. The
 * local-server recipes name their real addresses (localhost:11434, :8000): those requests reach a
 * stand-in as their HTTP proxy, while every other request goes straight to 127.0.0.1. Returns what to
 * check once the recipes ran.
 */
async function providerServers(env: Record<string, string>): Promise<() => void> {
  const serve = async (wire: ProviderWire, replies: RecordedReply[]) => {
    const server = await startRecordedProvider({ wire, replies });
    cleanups.push(() => server.close());
    return server;
  };
  const chatText = recordedStream("openrouter/openrouter-reasoning-text.composed.chunks.txt");
  env.OPENAI_BASE_URL = (
    await serve("openai-responses", [recordedStream("openai/issue-16021-openai-zod-patterns-live.chunks.txt")])
  ).baseURL;
  env.ANTHROPIC_BASE_URL = (await serve("anthropic-messages", [recordedStream("anthropic/anthropic-text.chunks.txt")])).baseURL;
  env.GOOGLE_BASE_URL = (await serve("gemini", [recordedStream("google/google-reasoning-gemini3.chunks.txt")])).baseURL;
  env.OPENROUTER_BASE_URL = (await serve("openai-chat", [chatText])).baseURL;
  const local = await serve("openai-chat", [chatText, chatText]);
  Object.assign(env, { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: local.url, NO_PROXY: "127.0.0.1" });
  // Each local-server recipe's request went to its own address, with the key the recipe gave.
  return () =>
    expect(local.requests.map((r) => [r.headers.host, r.headers.authorization])).toEqual([
      ["localhost:11434", undefined],
      ["localhost:8000", "Bearer token-abc"],
    ]);
}

const plainAnswers = (n: number): Script => Array.from({ length: n }, (_, i) => [text(`Done (${i + 1}).`)]);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", `set -euo pipefail\n${script}`], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => out.push(b));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output: Buffer.concat(out).toString("utf8") }));
  });
}

/** A workspace where `npx arbor` finds this checkout's CLI, as it does in a project that depends on it (`arbor` too: its bin folder goes on the PATH). */
function workspace(): { root: string; ws: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), "arbor-docs-"));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(join(ws, "node_modules", ".bin"), { recursive: true });
  mkdirSync(home);
  symlinkSync(ARBOR_BIN, join(ws, "node_modules", ".bin", "arbor"));
  return { root, ws, home };
}

function baseEnv(ws: string, home: string, server: FakeOpenAIServer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ARBOR_") && !k.startsWith("npm_") && k !== "FORCE_COLOR") env[k] = v;
  }
  return {
    ...env,
    // The Node running the tests runs the snippets' `node` and `npx` too; `arbor` is this checkout's.
    PATH: [dirname(process.execPath), join(ws, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter),
    ARBOR_HOME: home,
    ARBOR_MODEL: "openai-compatible/fake-model",
    ARBOR_BASE_URL: server.baseURL,
    NO_COLOR: "1",
    // `npm install` of a checkout's folder needs nothing from the registry; make sure it asks for nothing.
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

describe("the documentation's shell snippets", () => {
  for (const doc of DOCS) {
    const blocks = shellBlocks(doc, readFileSync(join(REPO_ROOT, doc), "utf8"));
    if (blocks.length === 0) continue;
    it(`${doc}: ${blocks.length} snippet(s) run as written`, { timeout: 120_000 }, async () => {
      const { ws, home } = workspace();
      const fake = await startFakeOpenAI({ script: SCRIPTS[doc] ?? plainAnswers(40) });
      cleanups.push(() => fake.close());
      const env = baseEnv(ws, home, fake);
      const afterRun = doc === "docs/providers.md" ? await providerServers(env) : undefined;
      if (["docs/http-api.md", "docs/open-responses.md", "docs/a2a.md", "docs/ag-ui.md"].includes(doc)) {
        const serve: RunningCli = startArbor(["serve", "--port", "0", "--json", "--cwd", ws], {
          home,
          env: { ARBOR_MODEL: env.ARBOR_MODEL as string, ARBOR_BASE_URL: fake.baseURL },
        });
        cleanups.push(async () => {
          serve.child.kill("SIGINT");
          await serve.result;
        });
        await serve.waitForStdout(/\n$/);
        env.ARBOR_URL = (JSON.parse(serve.stdout()) as { url: string }).url;
      }
      const script = blocks.map((b) => `# ${b.doc}:${b.line}\n${b.code}`).join("\n");
      const { code, output } = await runBash(script, ws, env);
      if (process.env.ARBOR_DOCS_TEST_PRINT) console.log(output);
      expect(code, `${doc}'s snippets failed:\n${output}`).toBe(0);
      for (const pattern of EXPECTED[doc] ?? []) expect(output).toMatch(pattern);
      afterRun?.();
    });
  }
});

/** A zod schema's definition, as far as the walks over the config schema below need it. */
interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  valueType?: unknown;
  element?: unknown;
  innerType?: unknown;
  /** A pipe's input schema (a transform's): what the user writes. */
  in?: unknown;
}

/** The definition of the schema under its optional, default, prefault and transform wrappers. */
function defOf(schema: unknown): SchemaDef {
  let def = (schema as { _zod: { def: SchemaDef } })._zod.def;
  for (let inner = def.innerType ?? def.in; inner !== undefined; inner = def.innerType ?? def.in) {
    def = (inner as { _zod: { def: SchemaDef } })._zod.def;
  }
  return def;
}

const joinKey = (prefix: string, key: string) => (prefix === "" ? key : `${prefix}.${key}`);

/**
 * Every key a configuration can set, as a path: `llm.maxTokens`; a record's entries as `*`
 * (`models.*.limit.context`), an array's items as `[]` (`security.rules[].id`).
 */
function settableKeys(schema: unknown, prefix = ""): string[] {
  const def = defOf(schema);
  if (def.type === "object" && def.shape !== undefined) {
    return Object.entries(def.shape).flatMap(([key, value]) => [
      joinKey(prefix, key),
      ...settableKeys(value, joinKey(prefix, key)),
    ]);
  }
  if (def.type === "record") return settableKeys(def.valueType, `${prefix}.*`);
  if (def.type === "array") return settableKeys(def.element, `${prefix}[]`);
  return [];
}

/** The key paths (named as `settableKeys` names them) that a configuration value sets, read along the schema. */
function keysSetBy(schema: unknown, value: unknown, prefix = ""): string[] {
  const def = defOf(schema);
  const shape = def.shape;
  if (def.type === "object" && shape !== undefined && typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, v]) => {
      const path = joinKey(prefix, key);
      return [path, ...(key in shape ? keysSetBy(shape[key], v, path) : [])];
    });
  }
  if (def.type === "record" && typeof value === "object" && value !== null) {
    return Object.values(value).flatMap((v) => keysSetBy(def.valueType, v, `${prefix}.*`));
  }
  if (def.type === "array" && Array.isArray(value)) return value.flatMap((v) => keysSetBy(def.element, v, `${prefix}[]`));
  return [];
}

/** Every ```json block of the documents, with where it starts, but those after a skip marker. */
function jsonBlocks(docs: readonly string[]): Array<{ where: string; text: string }> {
  return docs.flatMap((doc) => {
    const lines = readFileSync(join(REPO_ROOT, doc), "utf8").split("\n");
    const found: Array<{ where: string; text: string }> = [];
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]?.trim() !== "```json") continue;
      const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
      if (!SKIP.test((lines[i - 1] ?? "").trim())) {
        found.push({ where: `${doc}:${i + 1}`, text: lines.slice(i + 1, end).join("\n") });
      }
      i = end;
    }
    return found;
  });
}

describe("the configuration reference", () => {
  const reference = readFileSync(join(REPO_ROOT, "docs", "configuration.md"), "utf8");

  /** Every key of arbor.json, nested objects' keys as `a.b`, from the schema itself. */
  function keysOf(schema: unknown, prefix = ""): string[] {
    let s = schema as { shape?: Record<string, unknown>; _zod?: { def?: { innerType?: unknown; in?: unknown } } };
    while (s.shape === undefined && (s._zod?.def?.innerType ?? s._zod?.def?.in) !== undefined) {
      s = (s._zod?.def?.innerType ?? s._zod?.def?.in) as typeof s;
    }
    if (s.shape === undefined) return [];
    return Object.entries(s.shape).flatMap(([key, value]) => {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const nested = keysOf(value, path);
      // Records (models, pool, agents, servers) are described by example, not key by key.
      return nested.length > 0 ? nested : [path];
    });
  }

  it("names every arbor.json key and every environment variable Arbor reads", () => {
    const keys = keysOf(ConfigSchema);
    expect(keys.length).toBeGreaterThan(20);
    const missing = keys.filter((k) => !reference.includes(`\`${k}\``));
    expect(missing, "arbor.json keys missing from docs/configuration.md").toEqual([]);
    const envMissing = ENV_KEYS.map(([name]) => name).filter((name) => !reference.includes(`\`${name}\``));
    expect(envMissing, "environment variables missing from docs/configuration.md").toEqual([]);
  });

  it("sets every key, nested ones too, in one of its examples", () => {
    const set = new Set(jsonBlocks(["docs/configuration.md"]).flatMap((b) => keysSetBy(ConfigSchema, JSON.parse(b.text))));
    const keys = settableKeys(ConfigSchema);
    expect(keys).toEqual(expect.arrayContaining(["models.*.limit.context", "security.rules[].flags", "agents.*.maxTurns"]));
    expect(
      keys.filter((k) => !set.has(k)),
      "keys that no example of docs/configuration.md sets",
    ).toEqual([]);
  });

  it("sets every configuration variable in a shell example, and gives every other variable an example", () => {
    const shell = shellBlocks("docs/configuration.md", reference)
      .map((b) => b.code)
      .join("\n");
    const unset = ENV_KEYS.map(([name]) => name).filter((name) => !new RegExp(`(^|\\s)${name}=`).test(shell));
    expect(unset, "variables no shell example of docs/configuration.md sets").toEqual([]);
    const others = reference.slice(reference.indexOf("## Other environment variables"));
    const rows = others.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows.length).toBeGreaterThan(10);
    // Four cells a row (a `\|` inside a cell is text), the last one, the example, not empty.
    const cells = (row: string) => row.split(/(?<!\\)\|/).slice(1, -1);
    expect(rows.filter((row) => cells(row).length !== 4 || cells(row)[3]?.trim() === "")).toEqual([]);
  });
});

describe("the documentation's arbor.json examples", () => {
  it("each one, written as a workspace's arbor.json, is a configuration Arbor accepts", () => {
    // Every JSON block of the documents is a configuration; one that is not would carry the skip marker.
    const blocks = jsonBlocks(DOCS);
    expect(blocks.length).toBeGreaterThan(8);
    const known = new Set(settableKeys(ConfigSchema));
    const ws = mkdtempSync(join(tmpdir(), "arbor-docs-json-"));
    try {
      const refused: string[] = [];
      for (const block of blocks) {
        // A model's limits and prices drop unknown keys without a word: a misspelt one is caught here.
        const unknown = keysSetBy(ConfigSchema, JSON.parse(block.text)).filter((k) => !known.has(k));
        if (unknown.length > 0) refused.push(`${block.where}: unknown keys ${unknown.join(", ")}`);
        writeFileSync(join(ws, "arbor.json"), block.text);
        // An agent's prompt file is the user's own: a line of text stands in for it.
        for (const [, file] of block.text.matchAll(/"promptFile":\s*"([^"]+)"/g)) {
          mkdirSync(dirname(join(ws, file as string)), { recursive: true });
          writeFileSync(join(ws, file as string), "Review the change.\n");
        }
        try {
          loadConfig({ cwd: ws, env: { ARBOR_HOME: join(ws, "home") } });
        } catch (err) {
          refused.push(`${block.where}: ${(err as Error).message}`);
        }
      }
      expect(refused).toEqual([]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe("the provider recipes' price table", () => {
  it("lists every model of the built-in catalog with its limits and prices", () => {
    const recipes = readFileSync(join(REPO_ROOT, "docs", "providers.md"), "utf8");
    const n = (x: number) => x.toLocaleString("en-US");
    const p = (x: number | undefined) => (x === undefined ? "—" : `$${x}`);
    const rows = Object.entries(BUILTIN_MODELS).map(
      ([ref, i]) =>
        `| \`${ref}\` | ${n(i.limit.context)} | ${n(i.limit.output)} | ${p(i.cost?.input)} | ${p(i.cost?.output)} | ${p(i.cost?.cacheRead)} | ${p(i.cost?.cacheWrite)} |`,
    );
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((row) => !recipes.includes(row))).toEqual([]);
  });
});

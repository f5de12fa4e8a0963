import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorkspace, type TestServer } from "./helpers/server.js";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) against
 * Arbor's MCP server (`/mcp`) and Arbor's MCP client (scripts/mcp-conformance-client.mjs, the harness
 * `npm run conformance:mcp` also drives). Only the scenarios Arbor passes today run, so any of them
 * starting to fail fails here; the rest are listed below as known gaps, each with why.
 * Everything talks to 127.0.0.1: the suite's client scenarios start their own local test servers.
 */

const root = fileURLToPath(new URL("../../..", import.meta.url));
const suite = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const clientHarness = join(root, "scripts/mcp-conformance-client.mjs");

/** Server scenarios `/mcp` passes. */
const SERVER_SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  // Calls `test_simple_text`, a tool Arbor does not have: the suite checks only that the answer is
  // well-formed text content, which Arbor's unknown-tool answer is.
  "tools-call-simple-text",
  "tools-call-error",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  // Arbor's sessions and agents (arbor://sessions/…, arbor://agents/…) and its agents as prompts.
  "resources-list",
  "prompts-list",
] as const;

/**
 * Client scenarios the MCP client of a run (McpManager) passes. The auth/* ones log in through the
 * loopback listener of `arbor mcp login` (see the harness): discovery variants, Client ID Metadata
 * Documents, scope selection and step-up, token endpoint authentication, pre-registration, the
 * 2025-03-26 fallbacks, a mismatched resource refused, and offline_access only where offered.
 */
const CLIENT_SCENARIOS = [
  "initialize",
  "tools_call",
  "sse-retry",
  "elicitation-sep1034-client-defaults",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  // Extension scenarios (SEP-1046): a machine client (mcp.servers.<name>.oauth.grant "client_credentials")
  // authenticated by its secret (client_secret_basic) or by a JWT signed with its private key.
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
] as const;

/** Scenarios not run: what they need and why Arbor does not do it (yet). */
export const KNOWN_GAPS: Record<string, string> = {
  // Server: /mcp serves Arbor's own tools (run_prompt, read_session, …), not the suite's fixture tools.
  // Each of these calls a fixture of the suite's reference server by name (a tool, resource or
  // prompt Arbor does not have and should not invent): Arbor's own resources, prompts and completion
  // are covered by resources-list, prompts-list and mcp-resources.test.ts.
  "completion-complete": "completes an argument of the fixture prompt test_prompt_with_arguments",
  "tools-call-image": "needs the fixture tool test_image_content; Arbor's tools answer text and JSON",
  "tools-call-audio": "needs the fixture tool test_audio_content; Arbor's tools answer text and JSON",
  "tools-call-embedded-resource": "needs the fixture tool test_embedded_resource",
  "tools-call-mixed-content": "needs the fixture tool test_multiple_content_types",
  "tools-call-with-logging": "needs the fixture tool test_tool_with_logging",
  "tools-call-with-progress":
    "needs the fixture tool test_tool_with_progress (run_prompt does stream progress, see mcp-endpoint.test.ts)",
  "tools-call-sampling": "needs the fixture tool test_sampling; Arbor's server does not ask the client's model",
  "tools-call-elicitation": "needs the fixture tool test_elicitation; Arbor asks through list_pending/answer_permission",
  "elicitation-sep1034-defaults": "needs the fixture tool test_elicitation_sep1034_defaults",
  "elicitation-sep1330-enums": "needs the fixture tool test_elicitation_sep1330_enums",
  "resources-read-text": "reads the fixture resource test://static-text",
  "resources-read-binary": "reads the fixture resource test://static-binary; Arbor's resources are JSON",
  "resources-templates-read": "reads the fixture template test://template/{id}/data",
  "resources-subscribe": "subscribes to the fixture test://watched-resource, which Arbor refuses as unknown",
  "resources-unsubscribe": "subscribes to the fixture test://watched-resource first",
  "prompts-get-simple": "gets the fixture prompt test_simple_prompt",
  "prompts-get-with-args": "gets the fixture prompt test_prompt_with_arguments",
  "prompts-get-embedded-resource": "gets the fixture prompt test_prompt_with_embedded_resource",
  "prompts-get-with-image": "gets the fixture prompt test_prompt_with_image",
  "json-schema-2020-12": "pending in the suite (outside its active set); needs the fixture tool json_schema_2020_12_tool",
  "server-sse-polling": "pending in the suite (outside its active set); not assessed",
  // Client: an "extension" scenario (outside the spec versions the suite scores). It starts from an ID
  // token the user got by signing in to an enterprise identity provider, which Arbor has no way to
  // sign in to, and the MCP SDK Arbor's client is built on has neither the token exchange (RFC 8693)
  // nor the ID-JAG JWT bearer grant.
  "auth/cross-app-access-complete-flow":
    "enterprise-managed authorization (SEP-990: an IdP's ID token exchanged for an ID-JAG, then a JWT bearer grant); the SDK has no such flow and Arbor no IdP sign-in",
};

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs the suite's CLI; asynchronous, since the server under test answers on this process's event loop. */
function conformance(args: string[], cwd: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [suite, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => {
      output += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      output += b.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

let work: string;
let server: TestServer;
const SCENARIO_MS = 90_000;
/**
 * How long the suite gives the client harness (a node process loading core and the SDK, then an
 * OAuth login for the auth/* scenarios): 12 s at a load of 40 on 2 cores, 20 s was seen running out.
 */
const CLIENT_MS = "60000";
/** The scenarios that passed in this run, by side: printed at the end, so a CI log shows the counts. */
const passed = { server: 0, client: 0 };

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "arbor-mcp-conformance-")));
  mkdirSync(join(work, "work"));
  mkdirSync(join(work, "home"));
  // No scenario calls the model: run_prompt is never invoked.
  server = await serveWorkspace(work, { store: join(work, "store") });
});

afterAll(async () => {
  const gaps = Object.keys(KNOWN_GAPS);
  console.log(
    `MCP conformance (@modelcontextprotocol/conformance): server ${passed.server}/${SERVER_SCENARIOS.length} scenarios run passed, ` +
      `client ${passed.client}/${CLIENT_SCENARIOS.length}; not run (KNOWN_GAPS, each with why): ${gaps.join(", ")}`,
  );
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("MCP conformance suite", () => {
  it("lists every scenario of the suite as run or as a known gap, so a new one is decided on", async () => {
    const { output } = await conformance(["list"], work);
    const listed = [...output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(20);
    const decided = (name: string) =>
      (SERVER_SCENARIOS as readonly string[]).includes(name) ||
      (CLIENT_SCENARIOS as readonly string[]).includes(name) ||
      name in KNOWN_GAPS;
    expect(listed.filter((name) => !decided(name))).toEqual([]);
  });

  // Each scenario is its own process of the suite, one at a time: run together they starve a small machine.
  // A scenario took 13–30 s on a loaded 2-core CI machine (a node process of the suite, and the
  // client harness's own), against the default 30 s: they get SCENARIO_MS.
  describe("against Arbor's MCP server (/mcp)", () => {
    it.each(SERVER_SCENARIOS)(
      "%s passes",
      async (scenario) => {
        const { code, output } = await conformance(["server", "--url", `${server.url}/mcp`, "--scenario", scenario], work);
        expect(output).toMatch(/Passed: \d+\/\d+, 0 failed/);
        expect(code, output).toBe(0);
        passed.server++;
      },
      SCENARIO_MS,
    );
  });

  describe("against Arbor's MCP client (McpManager, through scripts/mcp-conformance-client.mjs)", () => {
    it.each(CLIENT_SCENARIOS)(
      "%s passes",
      async (scenario) => {
        const { code, output } = await conformance(
          ["client", "--command", `${process.execPath} ${clientHarness}`, "--scenario", scenario, "--timeout", CLIENT_MS],
          work,
        );
        expect(output).toMatch(/OVERALL: PASSED/);
        expect(code, output).toBe(0);
        passed.client++;
      },
      SCENARIO_MS,
    );
  });
});

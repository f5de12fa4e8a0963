// Arbor's MCP client as the conformance suite drives it: the suite appends its test server's URL
// and names the scenario in MCP_CONFORMANCE_SCENARIO. The server's tools are brought into a tool
// registry exactly as a run does (McpManager.sync) and each is called through the registry.
// A server's elicitation is answered as a person accepting the form as offered: no fields given,
// so the client fills in the form's defaults (in a run it is a durable ask, answered by `arbor approve`).
// A server behind OAuth (the auth/* scenarios) is logged in to as `arbor mcp login` does it: the same
// loopback listener on 127.0.0.1 receives the authorization code, and the "browser" is a fetch that
// follows the suite's authorization endpoint, which approves at once and redirects back. Tokens are
// kept in memory; the scenario's pre-registered client (MCP_CONFORMANCE_CONTEXT) is configured as
// mcp.servers.<name>.oauth would be; the client credentials scenarios configure a machine client.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolRegistry } from "@arbor/core";
import { McpManager, MemoryMcpCredentials } from "@arbor/core/tools";
import { LoopbackAuthorizer } from "../packages/cli/dist/mcp/loopback.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");

/** Arguments that satisfy the simple schemas the suite's tools declare. */
function argumentsFor(schema) {
  const args = {};
  for (const name of schema?.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = type === "number" || type === "integer" ? 1 : type === "boolean" ? true : type === "object" ? {} : "test";
  }
  return args;
}

const authorizer = await LoopbackAuthorizer.start({
  timeoutMs: 15_000,
  open: async (link) => {
    const res = await fetch(link);
    await res.body?.cancel();
  },
});
/**
 * The client credentials scenarios configure a machine client as mcp.servers.<name>.oauth would with
 * `grant: "client_credentials"`: the secret, or the private key written to a file (privateKeyFile).
 */
function machineOAuth() {
  if (!context.private_key_pem)
    return { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret };
  const dir = mkdtempSync(join(tmpdir(), "arbor-mcp-key-"));
  const privateKeyFile = join(dir, "client.pem");
  writeFileSync(privateKeyFile, context.private_key_pem, { mode: 0o600 });
  return {
    grant: "client_credentials",
    clientId: context.client_id,
    privateKeyFile,
    ...(context.signing_algorithm ? { signingAlgorithm: context.signing_algorithm } : {}),
  };
}

const oauth = scenario.startsWith("auth/client-credentials")
  ? machineOAuth()
  : {
      // Where an authorization server accepts Client ID Metadata Documents, Arbor's would be named here.
      clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
      ...(context.client_id ? { clientId: context.client_id } : {}),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    };
const manager = new McpManager({
  servers: { conf: { url, timeoutMs: 20_000, enabled: true, oauth } },
  toolCacheTtl: 60,
  oauth: { credentials: new MemoryMcpCredentials(), authorizer },
  elicit: async (request) => {
    console.log(`elicitation from ${request.server}: ${request.message}`);
    return { action: "accept", content: {} };
  },
});
const registry = new ToolRegistry();
let failed = false;
try {
  await manager.sync(registry);
  const [status] = await manager.status();
  if (status?.state.status !== "ready") throw new Error(status?.state.error ?? "not connected");
  if (scenario !== "initialize") {
    for (const tool of registry.list()) {
      const outcome = await registry.invoke(tool.name, argumentsFor(tool.inputSchema), {
        sessionId: "conformance",
        messageId: "m",
        callId: tool.name,
        agent: "conformance",
        cwd: process.cwd(),
        abort: new AbortController().signal,
        metadata: () => {},
        ask: async () => {},
      });
      console.log(`${tool.name}: ${outcome.isError ? "error" : "ok"}: ${outcome.output.slice(0, 200)}`);
    }
  }
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? err.message : String(err));
} finally {
  await manager.close();
  await authorizer.close();
}
process.exit(failed ? 1 : 0);

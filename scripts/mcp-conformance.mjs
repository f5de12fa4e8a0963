// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency)
// against Arbor's MCP server (`/mcp` of `arbor serve`) and Arbor's MCP client
// (scripts/mcp-conformance-client.mjs), and prints one line per scenario: pass, fail, or "n/a: <why>"
// for the scenarios scripts/mcp-conformance-scenarios.mjs lists as not applying to Arbor. It ends
// with "server: X of Y applicable scenarios pass" and the same for the client, and exits 1 when an
// applicable scenario fails. Node 22 or later.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLIENT_NOT_APPLICABLE, SERVER_NOT_APPLICABLE } from "./mcp-conformance-scenarios.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const suite = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const arbor = join(root, "packages/cli/bin/arbor.js");
const client = join(root, "scripts/mcp-conformance-client.mjs");
const work = mkdtempSync(join(tmpdir(), "arbor-mcp-conformance-"));
mkdirSync(join(work, "home"));

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function conformance(args) {
  const r = spawnSync(process.execPath, [suite, ...args], { cwd: work, encoding: "utf8", timeout: 600_000 });
  return `${r.stdout}\n${r.stderr}`;
}

const port = await freePort();
// The model is never called by the scenarios; the base URL only has to be valid.
const server = spawn(
  process.execPath,
  [
    arbor,
    "serve",
    "--port",
    String(port),
    "--cwd",
    work,
    "--model",
    "openai-compatible/none",
    "--base-url",
    "http://127.0.0.1:9/v1",
  ],
  { env: { ...process.env, ARBOR_HOME: join(work, "home") }, stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise((resolve, reject) => {
  server.stdout.on("data", (b) => b.toString().includes("serving") && resolve());
  server.once("exit", (code) => reject(new Error(`arbor serve exited (${code})`)));
});

/** One line for a scenario, counting it in `tally` when it applies. */
function report(tally, notApplicable, scenario, passed, detail) {
  const reason = notApplicable[scenario];
  if (reason !== undefined) {
    console.log(`- ${scenario}: n/a: ${reason}`);
    return;
  }
  tally.applicable++;
  if (passed) tally.passed++;
  else tally.failed.push(scenario);
  console.log(`${passed ? "✓" : "✗"} ${scenario}: ${passed ? "pass" : "fail"}${detail ? ` (${detail})` : ""}`);
}

const server_ = { applicable: 0, passed: 0, failed: [] };
const client_ = { applicable: 0, passed: 0, failed: [] };
try {
  console.log("== Arbor's MCP server (/mcp) ==");
  // Every server scenario, the suite's pending ones too: one suite process runs them in turn.
  const out = conformance(["server", "--url", `http://127.0.0.1:${port}/mcp`, "--suite", "all"]);
  const summary = [...out.slice(out.indexOf("=== SUMMARY ===")).matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gmu)];
  if (summary.length === 0) throw new Error(`The suite printed no summary:\n${out}`);
  for (const [, mark, scenario, ok, failed] of summary) {
    report(server_, SERVER_NOT_APPLICABLE, scenario, mark === "✓", `${ok}/${Number(ok) + Number(failed)} checks`);
  }

  console.log("\n== Arbor's MCP client ==");
  const listed = conformance(["list"]);
  const scenarios = listed
    .slice(listed.indexOf("Client scenarios"))
    .split("\n")
    .flatMap((line) => /^\s+- (\S+)/.exec(line)?.[1] ?? []);
  for (const scenario of scenarios) {
    if (scenario in CLIENT_NOT_APPLICABLE) {
      report(client_, CLIENT_NOT_APPLICABLE, scenario, false);
      continue;
    }
    const result = conformance([
      "client",
      "--command",
      `${process.execPath} ${client}`,
      "--scenario",
      scenario,
      "--timeout",
      "60000",
    ]);
    const counts = /Passed: (\d+)\/(\d+)/.exec(result);
    report(
      client_,
      CLIENT_NOT_APPLICABLE,
      scenario,
      /OVERALL: PASSED/.test(result),
      counts && `${counts[1]}/${counts[2]} checks`,
    );
  }
} finally {
  server.kill();
  rmSync(work, { recursive: true, force: true });
}

console.log("");
for (const [side, tally] of [
  ["server", server_],
  ["client", client_],
]) {
  const failing = tally.failed.length ? ` (failing: ${tally.failed.join(", ")})` : "";
  console.log(`${side}: ${tally.passed} of ${tally.applicable} applicable scenarios pass${failing}`);
}
if (server_.failed.length + client_.failed.length > 0) process.exitCode = 1;

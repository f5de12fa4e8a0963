// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency)
// against Arbor's MCP server (`/mcp` of `arbor serve`) and Arbor's MCP client
// (scripts/mcp-conformance-client.mjs), and prints one line per scenario. Node 22 or later.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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

try {
  console.log("== Arbor's MCP server (/mcp) ==");
  const out = conformance(["server", "--url", `http://127.0.0.1:${port}/mcp`]);
  const summary = out.slice(out.indexOf("=== SUMMARY ==="));
  console.log(summary.trim());

  console.log("\n== Arbor's MCP client ==");
  const listed = conformance(["list"]);
  const scenarios = listed
    .slice(listed.indexOf("Client scenarios"))
    .split("\n")
    .flatMap((line) => /^\s+- (\S+)/.exec(line)?.[1] ?? []);
  for (const scenario of scenarios) {
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
    const passed = /OVERALL: PASSED/.test(result);
    console.log(`${passed ? "✓" : "✗"} ${scenario}${counts ? `: ${counts[1]}/${counts[2]} checks` : ""}`);
  }
} finally {
  server.kill();
  rmSync(work, { recursive: true, force: true });
}

import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLIENT_NOT_APPLICABLE, SERVER_NOT_APPLICABLE } from "../../../scripts/mcp-conformance-scenarios.mjs";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) as
 * `npm run conformance:mcp` runs it (scripts/mcp-conformance.mjs): against `/mcp` of a real
 * `arbor serve` and against Arbor's MCP client. Every scenario that applies to Arbor must pass; those
 * that do not (scripts/mcp-conformance-scenarios.mjs, each with why) are printed as n/a. A scenario the
 * suite adds counts as applicable until it is decided on there. Everything talks to 127.0.0.1: the
 * suite's client scenarios start their own local test servers.
 */

const root = fileURLToPath(new URL("../../..", import.meta.url));
const script = join(root, "scripts/mcp-conformance.mjs");
/**
 * The whole run: 30-odd server scenarios in one suite process, then 26 client scenarios each in its
 * own (a node process of the suite and one of the client harness, with an OAuth login for most):
 * about 2.5 min on an idle 2-core machine, allowed four times that under a loaded CI.
 */
const RUN_MS = 12 * 60_000;

function runScript(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
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

describe("MCP conformance suite (npm run conformance:mcp)", () => {
  it("names a reason for every scenario it counts as not applicable", () => {
    for (const reason of [...Object.values(SERVER_NOT_APPLICABLE), ...Object.values(CLIENT_NOT_APPLICABLE)]) {
      expect(reason).toMatch(/\w{3,}.*\w{3,}/);
    }
  });

  it(
    "every applicable scenario passes, against Arbor's MCP server and Arbor's MCP client",
    async () => {
      const { code, output } = await runScript();
      // The counts go to the CI log.
      console.log(
        output
          .split("\n")
          .filter((line) => /applicable scenarios pass/.test(line))
          .join("\n"),
      );
      const server = /^server: (\d+) of (\d+) applicable scenarios pass/m.exec(output);
      const client = /^client: (\d+) of (\d+) applicable scenarios pass/m.exec(output);
      expect(server, output).not.toBeNull();
      expect(client, output).not.toBeNull();
      expect(server?.[1], output).toBe(server?.[2]);
      expect(client?.[1], output).toBe(client?.[2]);
      // Not vacuous: the protocol scenarios (initialize, ping, logging, listings, streams, DNS
      // rebinding) and the client's auth scenarios were run.
      expect(Number(server?.[2])).toBeGreaterThanOrEqual(8);
      expect(Number(client?.[2])).toBeGreaterThanOrEqual(25);
      // Every not-applicable scenario the suite still has is printed with its reason.
      for (const [scenario, reason] of Object.entries({ ...SERVER_NOT_APPLICABLE, ...CLIENT_NOT_APPLICABLE })) {
        expect(output).toContain(`- ${scenario}: n/a: ${reason}`);
      }
      expect(code, output).toBe(0);
    },
    RUN_MS,
  );
});

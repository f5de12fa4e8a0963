import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentPermissions, BUILTIN_AGENTS } from "../../src/agents/presets.js";
import { createPermissionAsk } from "../../src/permissions/ask.js";
import { rulesFromConfig } from "../../src/permissions/permission.js";
import { fetchTool } from "../../src/tools/builtin/fetch.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

/** Two local origins: `allowed` redirects, `other` records every request it gets. */
const hits: string[] = [];
let allowed = "";
let other = "";
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  other = await listen(
    createServer((req, res) => {
      hits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/plain" }).end("SECRET");
    }),
  );
  allowed = await listen(
    createServer((req, res) => {
      const to: Record<string, string> = { "/out": `${other}/secret`, "/hop": "/hop2", "/hop2": "/page", "/loop": "/loop" };
      const location = to[req.url ?? ""];
      if (location) res.writeHead(302, { location }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end("inside");
    }),
  );
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function setup() {
  const prompts: string[] = [];
  const rules = [
    ...agentPermissions({ agent: BUILTIN_AGENTS.build }),
    ...rulesFromConfig({ fetch: { "*": "ask", [`${allowed}/*`]: "allow" } }),
  ];
  const { ask } = createPermissionAsk({
    rules,
    prompt: async (request) => {
      prompts.push(request.patterns.join());
      return "reject";
    },
  });
  const registry = new ToolRegistry().register(fetchTool());
  return { prompts, run: (url: string) => registry.invoke("fetch", { url }, { ...fakeContext(tempDir()), ask }) };
}

describe("fetch checks its rules on every redirect hop", () => {
  it("an allowed URL redirecting to one the rules ask about asks, and nothing is fetched from there when refused", async () => {
    const { prompts, run } = setup();
    expect(await run(`${allowed}/out`)).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(prompts).toEqual([`${other}/secret`]);
    expect(hits).toEqual([]);
  });

  it("follows redirects the rules allow, and stops a redirect loop", async () => {
    const { prompts, run } = setup();
    expect(await run(`${allowed}/hop`)).toMatchObject({ isError: false, output: "inside", metadata: { url: `${allowed}/page` } });
    expect(prompts).toEqual([]);
    const loop = await run(`${allowed}/loop`);
    expect(loop).toMatchObject({ isError: true, code: "tool_failed" });
    expect(loop.output).toContain("redirected more than");
  });
});

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { text } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";

const modules = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/", import.meta.url));
const DOC = "demo://resource/static/document/instructions.md";

const e2e = setupCliE2e("arbor-mcp-resources-e2e-");

beforeAll(async () => {
  await writeFile(
    join(e2e.workspace, "arbor.json"),
    JSON.stringify({
      mcp: {
        servers: { everything: { command: process.execPath, args: [`${modules}server-everything/dist/index.js`, "stdio"] } },
      },
    }),
  );
});

/** The text of the last user message the fake provider was sent. */
function sentUserText(request: { body: unknown } | undefined): string {
  const messages = (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  const user = messages.filter((m) => m.role === "user").at(-1);
  if (typeof user?.content === "string") return user.content;
  const parts = Array.isArray(user?.content) ? (user.content as { type: string; text?: string }[]) : [];
  return parts.map((p) => p.text ?? "").join("");
}

describe("MCP resources and prompts from the command line", () => {
  it("arbor mcp resources and prompts list what a server offers, as they are typed in a prompt", async () => {
    const resources = await e2e.cli(["mcp", "resources", "everything", "--cwd", e2e.workspace]);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout).toContain(`@everything:${DOC}  instructions.md (text/markdown)`);
    expect(resources.stdout).toContain("@everything:demo://resource/dynamic/text/{resourceId}  Dynamic Text Resource (template)");
    const json = await e2e.cli(["mcp", "resources", "everything", "--json", "--cwd", e2e.workspace]);
    expect(JSON.parse(json.stdout)).toMatchObject({ server: "everything", subscribe: true });
    const prompts = await e2e.cli(["mcp", "prompts", "everything", "--cwd", e2e.workspace]);
    expect(prompts.code, prompts.stderr).toBe(0);
    expect(prompts.stdout).toContain("/mcp:everything:args-prompt city=… [state=…]");
    const unknown = await e2e.cli(["mcp", "prompts", "everythin", "--cwd", e2e.workspace]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No MCP server "everythin" is configured \(did you mean "everything"\?\)/);
  }, 120_000);

  it("arbor run attaches an @server:uri mention and runs /mcp:<server>:<prompt> k=v", async () => {
    const server = await e2e.startFake({ script: [[text("It is the server's guide.")], [text("Sunny.")]] });
    const attached = await e2e.cli(e2e.runArgs(server.baseURL, `explain @everything:${DOC}.`));
    expect(attached.code, attached.stderr).toBe(0);
    expect(runEvents(attached).at(-1)?.type).toBe("done");
    const sent = sentUserText(server.requests[0]);
    expect(sent).toMatch(new RegExp(`^explain @everything:${DOC}\\.\\n\\n\\[resource everything:${DOC}\\]\\n#`));
    const prompted = await e2e.cli(e2e.runArgs(server.baseURL, '/mcp:everything:args-prompt city="San Francisco" state=CA'));
    expect(prompted.code, prompted.stderr).toBe(0);
    expect(sentUserText(server.requests[1])).toBe("What's weather in San Francisco, CA?");
  }, 120_000);

  it("a mistyped prompt name fails the run as bad input, naming the nearest", async () => {
    const server = await e2e.startFake({ script: [[text("never")]] });
    const r = await e2e.cli(e2e.runArgs(server.baseURL, "/mcp:everything:args-promt city=Lyon"));
    expect(r.code).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toMatch(/has no prompt "args-promt" \(did you mean "args-prompt"\?\)/);
    expect(server.requests).toHaveLength(0);
  }, 120_000);
});

import { fileURLToPath } from "node:url";
import { ConfigSchema } from "@arbor/core";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const DOC = "demo://resource/static/document/instructions.md";

describe("the composer's @server:uri mentions", () => {
  it("attaches a configured MCP server's resource, which the model then reads in the message", async () => {
    const model = scriptedModel([[text("It is the server's guide.")]]);
    const server = await web.server({
      runtime: {
        model,
        config: ConfigSchema.parse({
          mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
        }),
      },
    });
    const page = await web.page();
    await page.goto(server.url);
    await page.getByLabel("Message").fill(`explain @everything:${DOC} and @nobody:x://y`);
    // Only the configured server's mention is attached; the other stays text.
    await page
      .getByRole("status")
      .filter({ hasText: `Attaching everything:${DOC}` })
      .waitFor();
    const request = page.waitForRequest((r) => r.url().endsWith("/api/chat"));
    await page.getByRole("button", { name: "Send" }).click();
    expect((await request).postDataJSON()).toMatchObject({
      message: `explain @everything:${DOC} and @nobody:x://y`,
      attachments: [{ mcp_resource: { server: "everything", uri: DOC } }],
    });
    await page.getByText("It is the server's guide.").waitFor();
    const user = (model.calls[0]?.prompt ?? []).filter((m) => m.role === "user").at(-1);
    const sent = (Array.isArray(user?.content) ? user.content : []).map((p) => (p.type === "text" ? p.text : "")).join("");
    expect(sent).toContain(`[resource everything:${DOC}]\n#`);
  }, 120_000);
});

import { fileURLToPath } from "node:url";
import { ConfigSchema } from "@arbor/core";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const DOC = "demo://resource/static/document/instructions.md";
const everything = () =>
  ConfigSchema.parse({ mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } } });

/** The text of the last user message the model was sent. */
function lastUserText(model: ReturnType<typeof scriptedModel>): string {
  const user = (model.calls[0]?.prompt ?? []).filter((m) => m.role === "user").at(-1);
  return (Array.isArray(user?.content) ? user.content : []).map((p) => (p.type === "text" ? p.text : "")).join("");
}

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

describe("the composer's MCP picker", () => {
  it("lists the server's resources and prompts, mentions a resource, and sends a prompt with the arguments asked for", async () => {
    const model = scriptedModel([[text("Sunny in San Francisco.")]]);
    const server = await web.server({ runtime: { model, config: everything() } });
    const page = await web.page({ width: 1280, height: 900 });
    await page.goto(server.url);
    const toggle = page.getByRole("button", { name: "MCP resources and prompts" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    const panel = page.getByRole("region", { name: "MCP resources and prompts" });
    const resources = panel.getByRole("list", { name: "everything resources" });
    await resources.waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await resources.getByRole("button", { name: "Attach instructions.md" }).count()).toBe(1);
    expect(await panel.getByRole("list", { name: "everything prompts" }).getByRole("button").count()).toBeGreaterThan(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "mcp-picker");

    // Escape closes the panel and gives the focus back to its button.
    await page.keyboard.press("Escape");
    expect(await panel.count()).toBe(0);
    expect(await toggle.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

    await toggle.click();
    await panel.getByRole("searchbox", { name: "Filter" }).fill("instructions");
    await panel.getByRole("button", { name: "Attach instructions.md" }).click();
    expect(await page.getByLabel("Message").inputValue()).toBe(`@everything:${DOC} `);
    await page
      .getByRole("status")
      .filter({ hasText: `Attaching everything:${DOC}` })
      .waitFor();

    await toggle.click();
    await panel.getByRole("searchbox", { name: "Filter" }).fill("arguments");
    await panel.getByRole("button", { name: "Use prompt Arguments Prompt" }).click();
    const form = page.getByRole("group", { name: "Prompt everything:args-prompt" });
    const city = form.getByRole("textbox", { name: "city (required)" });
    expect(await city.getAttribute("required")).not.toBeNull();
    expect(await form.getByRole("textbox", { name: "state" }).getAttribute("required")).toBeNull();
    // Sent without its required argument, the prompt says what to fill in and nothing is sent.
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").filter({ hasText: "Fill in city for the prompt." }).waitFor();
    expect(await city.getAttribute("aria-invalid")).toBe("true");
    await city.fill("San Francisco");
    expect(await page.getByRole("alert").filter({ hasText: "Fill in city" }).count()).toBe(0);
    await form.getByRole("textbox", { name: "state" }).fill("CA");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "mcp-prompt-form");

    const request = page.waitForRequest((r) => r.url().endsWith("/api/chat"));
    await page.getByRole("button", { name: "Send" }).click();
    expect((await request).postDataJSON()).toMatchObject({
      message: `@everything:${DOC} `,
      attachments: [{ mcp_resource: { server: "everything", uri: DOC } }],
      mcp_prompt: { server: "everything", name: "args-prompt", arguments: { city: "San Francisco", state: "CA" } },
    });
    await page.getByText("Sunny in San Francisco.").waitFor();
    expect(await form.count()).toBe(0);
    const sent = lastUserText(model);
    // The prompt's message opens the user message, the mention and its resource follow.
    expect(sent.startsWith("What's weather in San Francisco, CA?")).toBe(true);
    expect(sent).toContain(`[resource everything:${DOC}]`);
  }, 120_000);
});

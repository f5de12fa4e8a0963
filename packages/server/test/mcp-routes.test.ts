import { fileURLToPath } from "node:url";
import { ConfigSchema } from "@arbor/core";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, startServer } from "./helpers/server.js";

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const DOC = "demo://resource/static/document/instructions.md";

function withEverything(model = scriptedModel([])) {
  return startServer({
    runtime: {
      model,
      config: ConfigSchema.parse({
        mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
      }),
    },
  });
}

/** The text of the user message a model call was given. */
function userText(model: ReturnType<typeof scriptedModel>, call: number): string {
  const user = (model.calls[call]?.prompt ?? []).filter((m) => m.role === "user").at(-1);
  const parts = Array.isArray(user?.content) ? user.content : [];
  return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

describe("MCP routes for the inspector", () => {
  it("list the servers, a server's resources and its prompts; an unknown server is 404 naming the configured ones", async () => {
    const { api } = await withEverything();
    const servers = await (await api("/api/mcp/servers")).json();
    expect(servers).toEqual({ servers: [{ name: "everything", enabled: true, status: "ready" }] });
    const resources = await api("/api/mcp/servers/everything/resources");
    expect(resources.status).toBe(200);
    const listing = (await resources.json()) as { resources: { uri: string }[]; templates: { uriTemplate: string }[] };
    expect(listing.resources.map((r) => r.uri)).toContain(DOC);
    expect(listing.templates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
    const prompts = (await (await api("/api/mcp/servers/everything/prompts")).json()) as { prompts: { name: string }[] };
    expect(prompts.prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
    const unknown = await api("/api/mcp/servers/everythin/prompts");
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({
      code: "mcp_server_not_found",
      message: expect.stringContaining("configured: everything"),
    });
  });

  it("POST /api/chat reads attachments and fills in an MCP prompt for the run", async () => {
    const model = scriptedModel([[text("Read.")], [text("Sunny.")]]);
    const { api } = await withEverything(model);
    const first = await api("/api/chat", {
      json: { message: "summarize", attachments: [{ mcp_resource: { server: "everything", uri: DOC } }], stream: false },
    });
    expect(await first.json()).toMatchObject({ type: "done" });
    expect(userText(model, 0)).toMatch(new RegExp(`^summarize\\n\\n\\[resource everything:${DOC}\\]\\n#`));
    const second = await api("/api/chat", {
      json: {
        message: "",
        mcp_prompt: { server: "everything", name: "args-prompt", arguments: { city: "Oslo" } },
        stream: false,
      },
    });
    expect(await second.json()).toMatchObject({ type: "done" });
    expect(userText(model, 1)).toBe("What's weather in Oslo?");
    const empty = await api("/api/chat", { json: { message: "" } });
    expect(empty.status).toBe(400);
  });
});

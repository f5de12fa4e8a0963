import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigSchema, createRuntime, openStore } from "@arbor/core";
import { type ScriptedModel, scriptedModel, text } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ChatController } from "../src/chat/controller.js";
import { PLAIN_MARKDOWN } from "../src/chat/markdown.js";
import { PLAIN } from "../src/render/style.js";
import { captureIo } from "./helpers/io.js";

const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The text of the user message a model call was given. */
function userText(model: ScriptedModel, call: number): string {
  const user = (model.calls[call]?.prompt ?? []).filter((m) => m.role === "user").at(-1);
  const parts = Array.isArray(user?.content) ? user.content : [];
  return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

describe("arbor chat with MCP prompts and resources", () => {
  it("/mcp:<server>:<prompt> k=v runs the server's prompt and @server:uri attaches a resource", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-chat-mcp-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, "home"));
    const store = await openStore(join(dir, "store"));
    const model = scriptedModel([[text("Rainy.")], [text("A plaintext resource.")]]);
    const runtime = createRuntime({
      store,
      cwd: dir,
      arborHome: join(dir, "home"),
      env: {},
      model,
      config: ConfigSchema.parse({
        mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
      }),
    });
    cleanups.push(async () => {
      await runtime.close();
      await store.close();
    });
    const chat = new ChatController({
      io: captureIo(),
      store,
      storeLabel: "test",
      style: PLAIN,
      markdown: PLAIN_MARKDOWN,
      columns: 100,
      mcpServers: ["everything"],
    });
    chat.attach(runtime);
    await chat.submit("/mcp:everything:args-prompt city=Oslo");
    expect(userText(model, 0)).toBe("What's weather in Oslo?");
    await chat.submit("and @everything:demo://resource/dynamic/text/2?");
    expect(userText(model, 1)).toMatch(
      /^and @everything:demo:\/\/resource\/dynamic\/text\/2\?\n\n\[resource everything:demo:\/\/resource\/dynamic\/text\/2\]\nResource 2: /,
    );
    // Both turns went to the one session the chat is in.
    expect(chat.sessionId).toBeDefined();
    const items = chat
      .getState()
      .items.map((i) => i.text)
      .join("\n");
    expect(items).toContain("A plaintext resource.");
  }, 60_000);
});

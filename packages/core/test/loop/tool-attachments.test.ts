import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AnyToolDefinition } from "../../src/tools/tool.js";
import { MAX_ATTACHMENT_BYTES, type ToolAttachment } from "../../src/tools/tool.js";
import { collect, harness } from "./harness.js";

// A 1×1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function snapshot(attachments: ToolAttachment[], output = "Took a screenshot."): AnyToolDefinition {
  return {
    name: "screenshot",
    description: "Takes a screenshot.",
    input: z.object({}),
    effects: "none",
    async execute() {
      return { output, attachments };
    },
  };
}

/** The tool-result parts of a prompt a model was sent. */
function toolResults(prompt: LanguageModelV4Prompt) {
  return prompt.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result") : []));
}

describe("attachments of a tool result", () => {
  it("reach the next model call as file parts of a content output, and are stored on the tool part", async () => {
    const model = scriptedModel([[toolCall("screenshot", {}, { id: "s1" })], [text("I see a dot.")]], {
      provider: "anthropic.messages",
    });
    const { runtime, store } = await harness({ model });
    const tools = [snapshot([{ mediaType: "image/png", data: PNG, filename: "dot.png" }])];
    const handle = runtime.runs.run({ prompt: "Look.", tools });
    const { result, events } = await collect(handle);
    expect(result.status).toBe("done");
    const [sent] = toolResults(model.calls[1]!.prompt);
    expect(sent?.output).toEqual({
      type: "content",
      value: [
        { type: "text", text: "Took a screenshot." },
        { type: "file", data: { type: "data", data: PNG }, mediaType: "image/png", filename: "dot.png" },
      ],
    });
    // Watchers still read the text.
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ output: "Took a screenshot." });
    const stored = (await store.getActivePath(handle.sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "tool" ? e.message.content : [],
    );
    expect(stored[0]).toMatchObject({
      output: { type: "text", value: "Took a screenshot." },
      attachments: [{ type: "file", mediaType: "image/png", data: PNG, filename: "dot.png" }],
    });
  });

  it("leaves out one over the size limit or not base64, and the model reads why", async () => {
    const big = "A".repeat(Math.ceil(((MAX_ATTACHMENT_BYTES + 1024) * 4) / 3 / 4) * 4);
    const model = scriptedModel([[toolCall("screenshot", {}, { id: "s1" })], [text("ok")]], { provider: "google.generative-ai" });
    const { runtime } = await harness({ model });
    const tools = [
      snapshot([
        { mediaType: "image/png", data: big, filename: "huge.png" },
        { mediaType: "image/png", data: "not base64!" },
      ]),
    ];
    const { result } = await collect(runtime.runs.run({ prompt: "Look.", tools }));
    expect(result.status).toBe("done");
    const [sent] = toolResults(model.calls[1]!.prompt);
    expect(sent?.output.type).toBe("text");
    const value = (sent!.output as { value: string }).value;
    expect(value).toContain("[huge.png (image/png, 5.0 MB) left out: attachments are limited to 5.0 MB each]");
    expect(value).toContain("[attachment 2 left out: an attachment needs a media type and base64 data]");
  });

  it("reach a provider that takes no files in tool results as a note, never as base64 text", async () => {
    const model = scriptedModel([[toolCall("screenshot", {}, { id: "s1" })], [text("ok")]], { provider: "openai.chat" });
    const { runtime } = await harness({ model });
    await collect(
      runtime.runs.run({ prompt: "Look.", tools: [snapshot([{ mediaType: "image/png", data: PNG, filename: "dot.png" }])] }),
    );
    const [sent] = toolResults(model.calls[1]!.prompt);
    expect(sent?.output).toEqual({
      type: "text",
      value: "Took a screenshot.\n[dot.png attached; this model's API takes no files in tool results]",
    });
  });
});

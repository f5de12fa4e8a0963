// The density section's reference server: the same chat over SSE as `arbor serve`'s POST /api/chat, made of
// the AI SDK alone on node:http. Its model client is the one Arbor's openai-compatible provider uses, its tool
// reads the file the model names, and `streamText` runs the steps; nothing is stored, logged, checked or
// watched. A floor for what a server built on the AI SDK spends a run on this machine, not a product.
// Prints {"url": …} on a line once it listens, as `arbor serve --json` does.
//   node bench/server/density-ai-sdk-server.mjs <model base URL> <workspace dir>
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const [baseURL, cwd] = process.argv.slice(2);
if (!baseURL || !cwd) throw new Error("usage: density-ai-sdk-server.mjs <model base URL> <workspace dir>");
const model = createOpenAICompatible({ name: "fake", baseURL, apiKey: "none", includeUsage: true }).chatModel("fake");
const tools = {
  read: tool({
    description: "Reads a file of the workspace.",
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => readFile(join(cwd, path), "utf8"),
  }),
};
const frame = (event) => `data: ${JSON.stringify(event)}\n\n`;

const server = createServer(async (req, res) => {
  if (req.method !== "POST" || req.url !== "/api/chat") {
    res.writeHead(404).end();
    return;
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  const { message } = JSON.parse(body);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const result = streamText({ model, tools, prompt: message, stopWhen: stepCountIs(10) });
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") res.write(frame({ type: "token", content: part.text }));
      else if (part.type === "error") res.write(frame({ type: "error", content: String(part.error) }));
    }
    res.end(frame({ type: "done" }));
  } catch (err) {
    res.end(frame({ type: "error", content: String(err) }));
  }
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});

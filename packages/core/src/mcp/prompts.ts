import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { ArborError } from "../errors.js";
import type { UserMessage } from "../model/message.js";
import { nearestKey } from "../model/validate.js";
import type { McpConnection } from "./connection.js";
import { resourceParts } from "./resources.js";

/** One prompt a server offers (`prompts/list`), with the arguments it takes. */
export interface McpPromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

/** A prompt filled in by its server (`prompts/get`): messages ready to send, in Arbor's parts. */
export interface McpPromptMessages {
  server: string;
  name: string;
  description?: string;
  messages: { role: "user" | "assistant"; content: UserMessage["content"] }[];
}

async function listed(client: Client, options: { timeout: number; signal?: AbortSignal }): Promise<McpPromptInfo[]> {
  if (!client.getServerCapabilities()?.prompts) return [];
  const prompts: McpPromptInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, options);
    for (const p of page.prompts) {
      prompts.push({
        name: p.name,
        ...(p.title !== undefined ? { title: p.title } : {}),
        ...(p.description !== undefined ? { description: p.description } : {}),
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          ...(a.description !== undefined ? { description: a.description } : {}),
          required: a.required === true,
        })),
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return prompts;
}

export function listPrompts(connection: McpConnection, signal?: AbortSignal): Promise<McpPromptInfo[]> {
  return connection.request(listed, signal);
}

/**
 * Fills in a server's prompt. The name and the required arguments are checked against the server's
 * list first, so a mistyped name is answered with the nearest one and a missing argument by name.
 */
export function getPrompt(
  server: string,
  connection: McpConnection,
  name: string,
  args: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<McpPromptMessages> {
  return connection.request(async (client, options, traced) => {
    const prompts = await listed(client, options);
    const prompt = prompts.find((p) => p.name === name);
    if (!prompt) {
      const near = nearestKey(
        name,
        prompts.map((p) => p.name),
      );
      const offered = prompts.map((p) => p.name).join(", ") || "none";
      throw new ArborError(
        "mcp_prompt_not_found",
        `MCP server "${server}" has no prompt "${name}"${near ? ` (did you mean "${near}"?)` : ""}; it offers: ${offered}.`,
        { server, prompt: name, ...(near ? { nearest: near } : {}) },
      );
    }
    const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
    if (missing.length > 0) {
      throw new ArborError(
        "invalid_input",
        `MCP prompt "${server}:${name}" needs ${missing.map((m) => `${m}=…`).join(" ")} (its arguments: ${prompt.arguments
          .map((a) => `${a.name}${a.required ? "" : "?"}`)
          .join(", ")}).`,
        { server, prompt: name, missing },
      );
    }
    const result = await client.getPrompt({ name, arguments: { ...args }, ...traced }, options);
    return {
      server,
      name,
      ...(result.description !== undefined ? { description: result.description } : {}),
      messages: result.messages.map((m) => ({ role: m.role, content: blockParts(server, m.content) })),
    };
  }, signal);
}

function blockParts(server: string, block: ContentBlock): UserMessage["content"] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
    case "audio":
      return [{ type: "file", mediaType: block.mimeType, data: block.data }];
    case "resource_link":
      return [{ type: "text", text: `[resource link ${block.name}: ${block.uri}]` }];
    case "resource": {
      const r = block.resource;
      const text = "text" in r && typeof r.text === "string" ? r.text : undefined;
      const blob = "blob" in r && typeof r.blob === "string" ? r.blob : "";
      const mime = r.mimeType !== undefined ? { mimeType: r.mimeType } : {};
      return resourceParts(server, [text !== undefined ? { uri: r.uri, ...mime, text } : { uri: r.uri, ...mime, blob }]);
    }
  }
}

/**
 * A prompt's messages as the one user message a run starts with: the server's user turns in order;
 * an assistant turn (a few-shot example) is kept as text marked as the assistant's, since a run
 * takes a single message and the conversation it sets up is its text.
 */
export function promptContent(prompt: McpPromptMessages): UserMessage["content"] {
  const parts: UserMessage["content"] = [];
  for (const [i, message] of prompt.messages.entries()) {
    const gap = i > 0 ? "\n\n" : "";
    if (message.role === "assistant") parts.push({ type: "text", text: `${gap}[assistant, from the prompt]\n` });
    else if (gap) parts.push({ type: "text", text: gap });
    parts.push(...message.content);
  }
  return mergeTexts(parts);
}

/** Adjacent text parts as one, so the message reads as the server wrote it. */
export function mergeTexts(parts: UserMessage["content"]): UserMessage["content"] {
  const out: UserMessage["content"] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.type === "text" && last?.type === "text") out[out.length - 1] = { type: "text", text: last.text + part.text };
    else out.push(part);
  }
  return out;
}

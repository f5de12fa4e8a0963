import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { BlobStore } from "../tools/blob-store.js";
import type { ToolAttachment } from "../tools/tool.js";

/**
 * One block of an MCP result as it is kept on the tool part. Binary data and long texts over
 * `INLINE_LIMIT` are kept out of line in the blob store (`blob` is the ref), like other big outputs.
 */
export type McpPart =
  | { type: "text"; text?: string; blob?: string; chars: number }
  | { type: "image" | "audio"; mimeType: string; data?: string; blob?: string; bytes: number }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; data?: string; blob?: string; size: number };

/** What a tool part's metadata holds for an MCP call. */
export interface McpResultMetadata extends Record<string, unknown> {
  server: string;
  tool: string;
  parts: McpPart[];
  structuredContent?: Record<string, unknown>;
}

/** Characters (text) or base64 characters (binary) kept inline on the part; more goes to the blob store. */
export const INLINE_LIMIT = 8 * 1024;

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

async function keep(
  value: string,
  blobs: BlobStore | undefined,
  binary: boolean,
): Promise<{ inline: string } | { blob: string }> {
  if (value.length <= INLINE_LIMIT || !blobs) return { inline: value };
  return { blob: await blobs.put(binary ? Buffer.from(value, "base64") : value) };
}

async function toPart(block: ContentBlock, blobs: BlobStore | undefined): Promise<McpPart> {
  switch (block.type) {
    case "text": {
      const kept = await keep(block.text, blobs, false);
      return { type: "text", chars: block.text.length, ...("inline" in kept ? { text: kept.inline } : kept) };
    }
    case "image":
    case "audio": {
      const kept = await keep(block.data, blobs, true);
      return {
        type: block.type,
        mimeType: block.mimeType,
        bytes: base64Bytes(block.data),
        ...("inline" in kept ? { data: kept.inline } : kept),
      };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.mimeType ? { mimeType: block.mimeType } : {}),
      };
    case "resource": {
      const r = block.resource;
      const mime = r.mimeType ? { mimeType: r.mimeType } : {};
      if ("text" in r && typeof r.text === "string") {
        const kept = await keep(r.text, blobs, false);
        return {
          type: "resource",
          uri: r.uri,
          ...mime,
          size: r.text.length,
          ...("inline" in kept ? { text: kept.inline } : kept),
        };
      }
      const data = "blob" in r && typeof r.blob === "string" ? r.blob : "";
      const kept = await keep(data, blobs, true);
      return {
        type: "resource",
        uri: r.uri,
        ...mime,
        size: base64Bytes(data),
        ...("inline" in kept ? { data: kept.inline } : kept),
      };
    }
  }
}

/** What the model reads for one block: texts in full, anything binary as a short label. */
function describe(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link ${block.name}: ${block.uri}]`;
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") return `[resource ${r.uri}]\n${r.text}`;
      const size = "blob" in r && typeof r.blob === "string" ? base64Bytes(r.blob) : 0;
      return `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ""}, ${size} bytes]`;
    }
  }
}

/**
 * The model's text for a result: its blocks in order. A result that carries only
 * `structuredContent` is shown as that JSON, so nothing the server said is hidden from the model.
 */
export function resultText(result: CallToolResult): string {
  const texts = result.content.map(describe);
  if (result.structuredContent !== undefined && !result.content.some((b) => b.type === "text")) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  return texts.join("\n");
}

/**
 * The result's images, for the model to see as images (the run leaves out one over the attachment
 * limit and says so); its text keeps a label for each, which names them in every text-only view.
 */
export function resultAttachments(result: CallToolResult): ToolAttachment[] {
  return result.content.flatMap((block) => (block.type === "image" ? [{ mediaType: block.mimeType, data: block.data }] : []));
}

/** The result's structure as it is stored on the tool part. */
export async function resultMetadata(
  server: string,
  tool: string,
  result: CallToolResult,
  blobs: BlobStore | undefined,
): Promise<McpResultMetadata> {
  const parts: McpPart[] = [];
  for (const block of result.content) parts.push(await toPart(block, blobs));
  return {
    server,
    tool,
    parts,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
  };
}

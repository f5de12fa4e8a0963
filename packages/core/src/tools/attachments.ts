import type { FilePart } from "../model/parts.js";
import { MAX_ATTACHMENT_BYTES, type ToolAttachment } from "./tool.js";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes a base64 string decodes to. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The attachments of a result as they are stored and sent: each a file part with inline data. One
 * that is not base64 with a media type, or is over `MAX_ATTACHMENT_BYTES`, is left out, and a note
 * for the model says which and why, so the tool's author and the model both learn of it. Pure.
 */
export function keptAttachments(attachments: readonly ToolAttachment[] | undefined): { parts: FilePart[]; notes: string[] } {
  const parts: FilePart[] = [];
  const notes: string[] = [];
  for (const [i, a] of (attachments ?? []).entries()) {
    const name = a.filename ?? `attachment ${i + 1}`;
    if (typeof a.mediaType !== "string" || a.mediaType.trim() === "" || typeof a.data !== "string" || !BASE64.test(a.data)) {
      notes.push(`[${name} left out: an attachment needs a media type and base64 data]`);
      continue;
    }
    const bytes = base64Bytes(a.data);
    if (bytes > MAX_ATTACHMENT_BYTES) {
      notes.push(
        `[${name} (${a.mediaType}, ${megabytes(bytes)}) left out: attachments are limited to ${megabytes(MAX_ATTACHMENT_BYTES)} each]`,
      );
      continue;
    }
    parts.push({
      type: "file",
      mediaType: a.mediaType,
      data: a.data,
      ...(a.filename !== undefined ? { filename: a.filename } : {}),
    });
  }
  return { parts, notes };
}

import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { Context } from "hono";
import { ApiError } from "../errors.js";

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `Request body is larger than ${maxBytes} bytes; send less or raise maxBodyBytes.`);
}

/**
 * The request's JSON body, read with a size cap that holds for chunked uploads too. An empty body
 * reads as `{}` so routes whose fields are all optional need no body. A non-empty body must be
 * declared JSON: besides being honest, that forces a CORS preflight on cross-site browser requests,
 * which is what keeps a web page from driving a local server (see security.ts).
 */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const req = c.req.raw;
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const incoming = nodeRequest(c);
  let chunks: Uint8Array[];
  if (incoming !== undefined) chunks = await readCapped(incoming, maxBytes);
  else if (req.body === null || declared === "0") return {};
  else chunks = await readCapped(req.body, maxBytes);
  const size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  if (size === 0) return {};
  if (!isJson(req.headers.get("content-type") ?? undefined)) {
    throw new ApiError("unsupported_media_type", "Send the request body as JSON with Content-Type: application/json.");
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks, size));
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError("invalid_json", `Request body is not valid JSON: ${(err as Error).message}.`);
  }
}

/**
 * The Node request under @hono/node-server, when its body is still unread: read from it directly,
 * a body costs no web Request and ReadableStream (asking hono for `req.body` builds both, once a
 * chat, which showed in the server's profile). Undefined elsewhere (`app.request()` in tests).
 */
function nodeRequest(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof Readable && !incoming.readableDidRead ? (incoming as IncomingMessage) : undefined;
}

/** The body's chunks; past `maxBytes` the read stops (the body is dropped) and `payload_too_large` is thrown. */
async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early ends the body, as cancelling its reader did.
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return chunks;
}

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
  if (req.body === null || declared === "0") return {};
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
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

import { z } from "zod";
import { ArborError } from "../../errors.js";
import { throttleProgress } from "../progress-throttle.js";
import { defineTool, type ToolContext } from "../tool.js";

export interface FetchToolOptions {
  /** Largest response body accepted. Default 5 MB. */
  maxBytes?: number;
  /** Used when the call gives no timeout. Default 30 s. */
  defaultTimeoutMs?: number;
  /** The largest timeout a call may ask for. Default 120 s. */
  maxTimeoutMs?: number;
}

export const FetchInputSchema = z.strictObject({
  url: z.string().min(1).describe("The http:// or https:// URL to GET."),
  format: z
    .enum(["text", "raw"])
    .optional()
    .describe('"text" (default) turns HTML into readable text; "raw" returns the body as received.'),
  timeout: z.number().positive().optional().describe("Timeout in seconds (default 30)."),
});

const TEXTUAL =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-yaml|yaml|toml|ld\+json|[\w.+-]*\+(json|xml)))/i;

/**
 * HTTP(S) GET with a size and a time limit, so a huge download or a server that never answers
 * cannot stall the run. Only textual content is returned; HTML becomes plain text by default.
 */
export function fetchTool(options: FetchToolOptions = {}) {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxTimeout = options.maxTimeoutMs ?? 120_000;
  const defaultTimeout = Math.min(options.defaultTimeoutMs ?? 30_000, maxTimeout);

  return defineTool({
    name: "fetch",
    // An HTTP GET, which the protocol defines as safe.
    effects: "none",
    description:
      "Fetch a URL with HTTP GET and return its content as text (HTML is converted to readable text unless format is " +
      `"raw"). Responses over ${Math.round(maxBytes / 1024)} KB or slower than the timeout fail.`,
    input: FetchInputSchema,
    async execute(input, ctx) {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        throw new ArborError("invalid_tool_input", `url "${input.url}" is not a valid URL; give a full http:// or https:// URL.`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new ArborError("invalid_tool_input", `url must use http or https, not ${url.protocol.replace(/:$/, "")}.`);
      }
      const timeout = input.timeout !== undefined ? input.timeout * 1000 : defaultTimeout;
      if (input.timeout !== undefined && timeout > maxTimeout) {
        throw new ArborError("invalid_tool_input", `timeout ${input.timeout} s is over the limit of ${maxTimeout / 1000} s.`);
      }
      const timer = AbortSignal.timeout(timeout);
      const signal = AbortSignal.any([ctx.abort, timer]);
      const failed = (err: unknown): never => {
        if (ctx.abort.aborted) throw new ArborError("aborted", `Fetching ${url.href} was aborted.`);
        if (timer.aborted) {
          throw new ArborError(
            "tool_failed",
            `Fetching ${url.href} timed out after ${timeout / 1000} s. Try again or raise timeout.`,
          );
        }
        if (err instanceof ArborError) throw err;
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        throw new ArborError("tool_failed", `Fetching ${url.href} failed: ${cause ?? (err as Error).message}`);
      };

      let response: Response;
      try {
        response = await getFollowing(url, ctx, signal);
      } catch (err) {
        return failed(err);
      }
      const type = response.headers.get("content-type") ?? "";
      const declared = Number(response.headers.get("content-length") ?? Number.NaN);
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw tooLarge(url.href, maxBytes);
      }
      let body: Uint8Array;
      try {
        const progress = throttleProgress((update) => ctx.metadata(update));
        body = await readLimited(response, maxBytes, url.href, (received) => {
          // Only a long download is worth reporting; a page arrives before anyone could read a progress line.
          if (received < PROGRESS_FROM_BYTES) return;
          progress.report({
            title: url.href,
            metadata: { receivedBytes: received, ...(Number.isFinite(declared) ? { totalBytes: declared } : {}) },
          });
        }).finally(() => progress.flush());
      } catch (err) {
        return failed(err);
      }
      const text = Buffer.from(body).toString("utf8");
      if (!response.ok) {
        throw new ArborError(
          "tool_failed",
          `GET ${url.href} answered ${response.status} ${response.statusText}: ${text.slice(0, 500)}`,
          {
            status: response.status,
          },
        );
      }
      if (type !== "" && !TEXTUAL.test(type)) {
        throw new ArborError(
          "tool_failed",
          `${url.href} is ${type.split(";")[0]}, not text; fetch only returns textual content.`,
        );
      }
      const html = /html/i.test(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(text));
      // The HTML reader loads with the first page to read as text.
      const output = html && input.format !== "raw" ? (await import("../../knowledge/html-to-text.js")).htmlToText(text) : text;
      return {
        output: output.length > 0 ? output : "(empty response)",
        title: `${url.href} (${type.split(";")[0] || "unknown type"})`,
        metadata: { url: response.url, status: response.status, contentType: type, bytes: body.byteLength },
      };
    },
  });
}

/** Redirects followed before giving up, as browsers and fetch itself do. */
const MAX_REDIRECTS = 20;

function askFor(ctx: ToolContext, url: URL, from?: URL): Promise<void> {
  const metadata = { url: url.href, ...(from ? { redirectedFrom: from.href } : {}) };
  // "Always" approves this URL exactly, as shown: never its whole origin.
  return ctx.ask({ permission: "fetch", patterns: [url.href], metadata });
}

/**
 * GET that follows redirects itself, asking the rules for every hop: a URL the rules allow must not
 * lead, through a redirect, to one they deny or would ask about.
 */
async function getFollowing(start: URL, ctx: ToolContext, signal: AbortSignal): Promise<Response> {
  let url = start;
  await askFor(ctx, url);
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { signal, redirect: "manual", headers: { accept: "text/html, text/*;q=0.9, */*;q=0.5" } });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new ArborError("tool_failed", `${start.href} redirected more than ${MAX_REDIRECTS} times.`);
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new ArborError(
        "tool_failed",
        `${url.href} redirected to ${next.protocol} URL ${next.href}; fetch follows http and https only.`,
      );
    }
    await askFor(ctx, next, url);
    url = next;
  }
}

/** Reads the body chunk by chunk and stops at the limit instead of buffering whatever arrives. */
/** Downloads smaller than this report no progress. */
const PROGRESS_FROM_BYTES = 256 * 1024;

async function readLimited(
  response: Response,
  maxBytes: number,
  href: string,
  onChunk: (received: number) => void,
): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(href, maxBytes);
    }
    chunks.push(value);
    onChunk(total);
  }
  return Buffer.concat(chunks);
}

function tooLarge(href: string, maxBytes: number): ArborError {
  return new ArborError(
    "tool_failed",
    `The response from ${href} is larger than ${Math.round(maxBytes / 1024)} KB, the fetch limit. Fetch a more specific page or use bash with curl and head.`,
  );
}

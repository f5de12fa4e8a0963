import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";

/**
 * The inspector: the React app that `packages/web` builds into this package's `web-dist/`
 * (by `npm run build` and `npm install`'s prepare). It is served at `/` from the same origin as the
 * API, so the app needs no CORS; the shell holds no data, so it needs no token (API calls do).
 */

/** API paths are never the app's: an unknown one is the API's JSON 404, not the HTML shell. */
export function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/** `web-dist/` beside `src/` and `dist/`: the same path whether this runs from source or from the build. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../../web-dist/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Arbor</title>
<body style="font-family:system-ui;margin:3rem"><h1>The inspector is not built</h1>
<p>Run <code>npm run build</code> at the repository root, then reload. The API is served under <code>/api</code>.</p></body></html>`;

/** Vite names built assets by content hash, so they never change under a name; the shell must be revalidated. */
function cacheControl(path: string): string {
  return path.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
}

async function fileAt(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const full = resolve(root, `.${decoded}`);
  // Never outside the root, whatever `..` or encoded separators the path held.
  if (full !== root && !full.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  const info = await stat(full).catch(() => undefined);
  return info?.isFile() ? full : undefined;
}

function respond(c: Context, body: Uint8Array | string, type: string, cache: string): Response {
  c.header("Content-Type", type);
  c.header("Cache-Control", cache);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  return c.body(typeof body === "string" ? body : new Uint8Array(body), 200);
}

/**
 * A GET handler for every path outside `/api`: a built file when one matches, else the app's
 * `index.html` (client-side routes such as `/sessions/:id/tree`), except for paths that name a
 * file (`/assets/x.js`), which are 404 so a stale page fails loudly instead of parsing HTML as code.
 */
export function webAppHandler(root: string = DEFAULT_WEB_ROOT): (c: Context) => Promise<Response> {
  const base = resolve(root);
  return async (c) => {
    const path = c.req.path;
    if (isApiPath(path)) return c.notFound();
    const file = path === "/" ? undefined : await fileAt(base, path);
    if (file) {
      const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
      return respond(c, await readFile(file), type, cacheControl(path));
    }
    if (extname(path) !== "" && extname(path) !== ".html") {
      return c.text(`No file ${path} in the inspector's build.`, 404, { "Cache-Control": "no-cache" });
    }
    const index = await readFile(join(base, "index.html")).catch(() => undefined);
    return respond(c, index ?? NOT_BUILT, CONTENT_TYPES[".html"] as string, "no-cache");
  };
}

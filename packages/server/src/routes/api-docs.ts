import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { z } from "zod";
import { defineRoute, type Route } from "../http/route.js";

/**
 * `/api/docs`: an interactive reference of this API (Swagger UI, served from the `swagger-ui-dist`
 * package, so nothing comes from the network). The page and its assets hold no data and need no
 * token; the page reads the inspector's saved token (same origin) and sends it with every call it
 * makes, including the fetch of the OpenAPI document.
 */

const ASSETS = {
  "swagger-ui.css": { file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "swagger-ui-standalone-preset.js": { file: "swagger-ui-standalone-preset.js", type: "text/javascript; charset=utf-8" },
  "init.js": { file: undefined, type: "text/javascript; charset=utf-8" },
} as const;

type AssetName = keyof typeof ASSETS;
const AssetParams = z.object({
  asset: z.enum(Object.keys(ASSETS) as [AssetName, ...AssetName[]]),
});

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arbor API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

// Kept in a file of its own rather than inline, so a strict Content-Security-Policy in front of the
// server does not have to allow inline scripts. "arbor.token" is where the inspector keeps the token.
const INIT = `(() => {
  let token = "";
  try { token = localStorage.getItem("arbor.token") || ""; } catch {}
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
    requestInterceptor: (request) => {
      if (token && !request.headers.Authorization) request.headers.Authorization = "Bearer " + token;
      return request;
    },
  });
})();
`;

function swaggerDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("swagger-ui-dist/package.json"));
}

/** The page and its assets: public like the inspector's shell, since they hold no data. */
export function isApiDocsPath(path: string): boolean {
  return path === "/api/docs" || path.startsWith("/api/docs/");
}

export function apiDocsRoutes(): Route[] {
  const dir = swaggerDir();
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/docs",
        tag: "meta",
        summary: "This API's interactive reference (Swagger UI over /api/openapi.json); needs no token",
        public: true,
        responses: { 200: { description: "An HTML page.", contentType: "text/html" } },
      },
      (_input, c) => {
        c.header("Cache-Control", "no-cache");
        return c.html(PAGE);
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/docs/:asset",
        tag: "meta",
        summary: "The reference page's scripts and styles; needs no token",
        public: true,
        params: AssetParams,
        responses: { 200: { description: "A script or style sheet.", contentType: "text/javascript" } },
      },
      async ({ params }, c) => {
        const asset = ASSETS[params.asset];
        const body = asset.file === undefined ? INIT : await readFile(join(dir, asset.file), "utf8");
        c.header("Content-Type", asset.type);
        c.header("Cache-Control", "no-cache");
        c.header("X-Content-Type-Options", "nosniff");
        return c.body(body, 200);
      },
    ),
  ];
}

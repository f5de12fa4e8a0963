import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The build lands in the server package, which serves it at `/` (packages/server/src/routes/web-app.ts).
const outDir = fileURLToPath(new URL("../server/web-dist", import.meta.url));
// `npm run dev -w @arbor/web` proxies the API to a running `arbor serve` (override with ARBOR_URL).
const api = process.env.ARBOR_URL ?? "http://127.0.0.1:4096";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [react()],
  build: { outDir, emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { "/api": { target: api, ws: true, changeOrigin: true } } },
});

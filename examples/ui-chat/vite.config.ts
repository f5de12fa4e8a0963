import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";

/**
 * The page calls /api on its own origin and Vite forwards it to `arbor serve`, so no CORS setup is
 * needed. The server refuses requests whose Origin is another site's, so the page's own origin is
 * rewritten to the server's; a request from any other site keeps its Origin and is still refused.
 */
const api: ProxyOptions = {
  target: process.env.ARBOR_URL ?? "http://127.0.0.1:4096",
  changeOrigin: true,
  configure(proxy, options) {
    proxy.on("proxyReq", (proxyReq, req) => {
      const origin = req.headers.origin;
      if (origin !== undefined && new URL(origin).host === req.headers.host) {
        proxyReq.setHeader("origin", new URL(String(options.target)).origin);
      }
    });
  },
};

export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": api } },
  // `vite preview` serves the built page the same way.
  preview: { proxy: { "/api": api } },
});

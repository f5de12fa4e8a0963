import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The page calls /api on its own origin and Vite forwards it to `arbor serve`, so no CORS setup is needed.
const target = process.env.ARBOR_URL ?? "http://127.0.0.1:4096";

export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": { target, changeOrigin: true } } },
});

import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string, entry = "index") => fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Anchored patterns: a bare "@arbor/core" alias would also capture "@arbor/core/internal" as a path under it.
    alias: [
      { find: /^@arbor\/core$/, replacement: src("core") },
      { find: /^@arbor\/core\/internal$/, replacement: src("core", "internal") },
      { find: /^@arbor\/testkit$/, replacement: src("testkit") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

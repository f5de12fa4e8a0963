import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string, entry = "index") => fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Anchored patterns: a bare "@arbor/core" alias would also capture "@arbor/core/store" as a path under it.
    // Each subpath `@arbor/core/<name>` is the entry file packages/core/src/entries/<name>.ts.
    alias: [
      { find: /^@arbor\/core$/, replacement: src("core") },
      { find: /^@arbor\/core\/([\w-]+)$/, replacement: src("core", "entries/$1") },
      { find: /^@arbor\/testkit$/, replacement: src("testkit") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    // Most suites wait on processes, databases and browsers rather than compute: two files at a time
    // on a 2-core machine take well under half the time of one (vitest's default there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

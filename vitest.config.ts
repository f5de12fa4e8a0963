import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string, entry = "index") => fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url));

/** Core tests that count the worker process's children (see the projects below). */
const OWN_PROCESS = ["packages/core/test/snapshot/git-runner.test.ts"];
const NODE_MODULES = ["**/node_modules/**"];

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
    // The test files are the projects' below (an include here would be added to each project's).
    globalSetup: ["./vitest.global-setup.ts"],
    // Most suites wait on processes, databases and browsers rather than compute: two files at a time
    // on a 2-core machine take well under half the time of one (vitest's default there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for a state to be reached (a page rendered, a file written) and returns as soon
    // as it is, so a longer bound costs only a failing test's time: vitest's 1 s was missed by a page
    // loading a session at load 11 on two cores.
    expect: { poll: { timeout: 10_000 } },
    // Core's test files share their worker's modules and process (isolate: false): core keeps no
    // module-level mutable state, its tests restore the timers and environment they stub, and
    // re-importing core for every file was most of a unit file's time (all 165 files: 140 -> 75 CPU
    // seconds). A test that counts its process's children runs in a process of its own, where
    // no earlier file's are left. The other packages' tests start servers, browsers and CLIs in
    // process and keep isolation.
    projects: [
      {
        test: {
          name: "core",
          include: ["packages/core/test/**/*.test.ts"],
          exclude: [...OWN_PROCESS, ...NODE_MODULES],
          isolate: false,
        },
      },
      { test: { name: "core (own process)", include: OWN_PROCESS } },
      { test: { name: "packages", include: ["packages/*/test/**/*.test.ts"], exclude: ["packages/core/**", ...NODE_MODULES] } },
    ],
  },
});

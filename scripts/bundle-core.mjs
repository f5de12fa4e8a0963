// Bundles @arbor/core's build (packages/core/dist, written by tsc) into packages/core/dist-bundle,
// which the package's entry points name. A process that loads core loads a few dozen files instead
// of ~400 modules: each module costs Node's loader a resolve, a package scope lookup, a few file
// system calls and a compile, and together they were most of `arbor run`'s start before its first
// model request. Types still come from dist/ (the `types` of each entry point).
//
// Every file lands at the top of dist-bundle, so a path core builds from its own `import.meta.url`
// still names a file beside it: the scripts core starts by path (the git runner's child and the
// modules it imports by URL, SQLite's checkpoint worker) are entries of their own, under the names
// the code asks for.
//
// `node scripts/bundle-core.mjs` bundles; `npm run build` and `npm install` run it after tsc.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "packages/core/dist");
export const BUNDLE = join(ROOT, "packages/core/dist-bundle");
/** Written last, holding the newest build time bundled: a bundle without it is unfinished. */
const STAMP = join(BUNDLE, "bundled-from.json");

/** Started by path (see above): each is found under its module's own name, beside the code that starts it. */
const SCRIPTS = [
  "snapshot/git-runner-child",
  "snapshot/loose-objects",
  "snapshot/named-tree",
  "snapshot/named-patch",
  "store/sql/sqlite-checkpoint-worker",
];

/** The newest modification time of a .js file under `dir`. */
function newestJs(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) max = Math.max(max, newestJs(path));
    else if (entry.name.endsWith(".js")) max = Math.max(max, statSync(path).mtimeMs);
  }
  return max;
}

/** This script's own text, hashed: a bundle made with other options is not current either. */
function recipe() {
  return createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 16);
}

/** Whether dist-bundle holds the build as it is now, bundled as this script bundles it. */
export function coreBundleIsCurrent() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, "utf8"));
    return stamp.builtAt === newestJs(DIST) && stamp.recipe === recipe();
  } catch {
    return false;
  }
}

/** Bundles dist into dist-bundle, replacing what was there. */
export async function bundleCore() {
  const { rolldown } = await import("rolldown");
  const builtAt = newestJs(DIST);
  const input = { index: join(DIST, "index.js") };
  for (const name of readdirSync(join(DIST, "entries"))) {
    if (name.endsWith(".js")) input[name.slice(0, -3)] = join(DIST, "entries", name);
  }
  for (const script of SCRIPTS) input[script.split("/").at(-1)] = join(DIST, `${script}.js`);
  rmSync(BUNDLE, { recursive: true, force: true });
  const bundle = await rolldown({
    input,
    platform: "node",
    // Only core's own modules are bundled; its dependencies load from node_modules as before.
    external: (id) => !id.startsWith(".") && !id.startsWith("/"),
    logLevel: "warn",
  });
  await bundle.write({
    dir: BUNDLE,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    sourcemap: true,
    // Source held as one-byte text and without doc comments (types and docs come from dist/): a
    // non-ASCII character anywhere in a chunk made Node decode the whole chunk to UTF-16, and the
    // comments were a fifth of what each process read, hashed and scanned at start.
    charset: "ascii",
    comments: { legal: true, annotation: true, jsdoc: false },
  });
  await bundle.close();
  writeFileSync(STAMP, `${JSON.stringify({ builtAt, recipe: recipe() })}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleCore();

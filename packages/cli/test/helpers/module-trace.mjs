// Loaded with `node --import` by cold-start.test.ts: writes every module the process resolved (one
// URL a line) to $ARBOR_TEST_MODULE_TRACE when it exits.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on("exit", () => writeFileSync(process.env.ARBOR_TEST_MODULE_TRACE, [...seen].join("\n")));

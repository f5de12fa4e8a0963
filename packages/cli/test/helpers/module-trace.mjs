// Loaded with `node --import` by cold-start.test.ts: writes every module the process resolved (one
// URL a line) to $ARBOR_TEST_MODULE_TRACE when it exits, or, with $ARBOR_TEST_MODULE_TRACE_AT=fetch,
// at its first outgoing fetch (the first model request of `arbor run`): what it loaded before that.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { atFirstFetchOrExit } from "./first-fetch.mjs";

const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
const write = () => writeFileSync(process.env.ARBOR_TEST_MODULE_TRACE, [...seen].join("\n"));
atFirstFetchOrExit(process.env.ARBOR_TEST_MODULE_TRACE_AT, write);

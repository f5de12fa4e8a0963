import { registerHooks } from "node:module";

/** What zod's classic and mini entries import the `z.locales` namespace as (`export * as locales`). */
const LOCALES_SPECIFIER = "../locales/index.js";
const STAND_IN = new URL("./zod-locales.js", import.meta.url).href;

/**
 * Makes zod's locales load on use in this process: the eager `z.locales` namespace (~60 modules, a
 * tenth of what `arbor run` loads before its first model request, and several MB) resolves to
 * `zod-locales.js`, which loads a locale only when a program asks for it. English, zod's default, is
 * imported by zod's schemas directly and is untouched. Node before 22.15 has no in-thread hooks: there
 * every locale loads as before.
 */
export function loadZodLocalesOnUse(): void {
  registerHooks?.({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (specifier !== LOCALES_SPECIFIER || !resolved.url.endsWith("/zod/v4/locales/index.js")) return resolved;
      return { url: `${STAND_IN}?of=${encodeURIComponent(resolved.url)}`, format: "module", shortCircuit: true };
    },
  });
}

// `npm run chaos`: loads the checker (bench/chaos/chaos.ts) with Node's TypeScript support, so it can
// use the CLI tests' helpers as they are. TypeScript resolves `./x.js` to `./x.ts`; this hook does the
// same for files under this repository.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      const ts = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
      if (existsSync(fileURLToPath(ts))) return next(ts.href, context);
    }
    return next(specifier, context);
  },
});

await import("./chaos.ts");

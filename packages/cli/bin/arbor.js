#!/usr/bin/env node
import { enableCompileCache } from "node:module";

// Node keeps the compiled code of the modules a command loads on disk (in its temp directory) and
// reuses it on the next start: a command that opens a store loads a few hundred modules, and
// compiling them is a good part of its start-up. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
enableCompileCache?.();
// zod's ~60 locale modules load when a locale is asked for, not with zod (see the hook's comment).
(await import("../dist/launch/zod-locales-hook.js")).loadZodLocalesOnUse();
await import("../dist/main.js");

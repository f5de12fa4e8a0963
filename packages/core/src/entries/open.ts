/**
 * `@arbor/core/open`: opening a store and telling Arbor's errors apart, without the runtime. The same
 * bindings as the public entry's names of these (a subset, never new names): importing `@arbor/core`
 * loads the whole runtime (the loop, tools, models, knowledge base), which a command that only reads a
 * store pays for at every start. Used by the CLI's store commands.
 */

export { ArborError, type ArborErrorCode, isArborError } from "../errors.js";
export { openStore } from "../store/open.js";
export type { StoreSpec } from "../store/spec.js";
export type { Store } from "../store/store.js";

/**
 * `@arbor/core/interop`: converting sessions from and to other agents' formats (Claude Code, Codex,
 * OpenCode, pi, ATIF). Used by the CLI's `import` and `export` commands.
 */
export { atifSubSessionIds, toAtif } from "../interop/atif/export.js";
export { type ClaudeFile, convertClaudeCodeSession } from "../interop/claude-code/import.js";
export { convertCodexSession } from "../interop/codex/import.js";
export { convertOpenCodeRows, type OpenCodeRows } from "../interop/opencode/import.js";
export { entriesToExport } from "../interop/path.js";
export { toPiSession } from "../interop/pi/export.js";
export { convertPiSession } from "../interop/pi/import.js";
export {
  type Conversion,
  IMPORT_SOURCES,
  type ImportSource,
  isImportSource,
  mergeSkips,
  type SkipCounts,
} from "../interop/types.js";

export { decodeEntities, htmlToText } from "../knowledge/html-to-text.js";
export * from "./blob-store.js";
export { BashInputSchema, type BashToolOptions, bashTool } from "./builtin/bash.js";
export { EditInputSchema, editTool } from "./builtin/edit.js";
export { FetchInputSchema, type FetchToolOptions, fetchTool } from "./builtin/fetch.js";
export { GLOB_LIMIT, GlobInputSchema, globTool } from "./builtin/glob.js";
export { GREP_LIMIT, GrepInputSchema, grepTool } from "./builtin/grep.js";
export { type KnowledgeReference, SearchKnowledgeBaseInputSchema, searchKnowledgeBaseTool } from "./builtin/knowledge.js";
export { LIST_LIMIT, ListInputSchema, listTool } from "./builtin/list.js";
export {
  MemorySearchInputSchema,
  type MemoryToolOptions,
  MemoryWriteInputSchema,
  memorySearchTool,
  memoryWriteTool,
} from "./builtin/memory.js";
export { PythonReplInputSchema, type PythonReplToolOptions, pythonReplTool } from "./builtin/python-repl.js";
export { DEFAULT_READ_LIMIT, ReadInputSchema, type ReadToolOptions, readTool } from "./builtin/read.js";
export { SkillInputSchema, type SkillToolOptions, skillTool } from "./builtin/skill.js";
export { WriteInputSchema, writeTool } from "./builtin/write.js";
export * from "./builtins.js";
export * from "./doom-loop.js";
export * from "./glob-pattern.js";
export * from "./output-cap.js";
export * from "./paths.js";
export { PythonRepls, type PythonReplsOptions, type ReplRun } from "./python/python-repls.js";
export * from "./registry.js";
export * from "./run-values.js";
export * from "./skills.js";
export * from "./tool.js";
export * from "./walk.js";

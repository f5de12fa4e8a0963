/**
 * The public API of `@arbor/core`: what a program needs to run agents over a store. Every name is
 * listed here by hand, so this file and the README's "Public API" are the reference, and a name
 * becomes public only by being added here on purpose. The server, CLI, scripts and benchmarks take the
 * few building blocks behind it they need from the subpath entries in `./entries/`.
 */

export type { AgentDefinition } from "./agents/definition.js";
// Configuration
export { type LoadConfigOptions, loadConfig } from "./config/load.js";
export { type ConfigLayer, resolveConfig } from "./config/resolve.js";
export { type Config, ConfigSchema } from "./config/schema.js";
// Errors
export { ArborError, type ArborErrorCode, isArborError } from "./errors.js";
export type { DebugLevel } from "./events/debug-records.js";
export { type WatchEvent, WatchEventSchema, type WatchMessage } from "./events/watch-events.js";
// Watching a trace
export { WatchHub } from "./events/watch-hub.js";
export { FileCacheStore } from "./llm/cache/file-cache-store.js";
export { LlmCache, type LlmCacheOptions } from "./llm/cache/llm-cache.js";
export { type ModelInfo, modelInfo } from "./llm/catalog.js";
export { formatModelRef, type ModelRef, type ProviderName, parseModelRef } from "./llm/model-ref.js";
// Models
export { createModelRegistry, type ModelRegistry, type ModelRegistryOptions } from "./llm/registry.js";
export type { ModelResolver } from "./llm/resolved-model.js";
// Extending runs
export type { RunLaunch, RunObserver } from "./loop/extension.js";
export { appendCustom, appendEntry, appendMessage } from "./loop/journal.js";
export type { RunContext, RunExtension } from "./loop/run-context.js";
export type {
  MiddlewareContext,
  RunHandle,
  RunInput,
  RunMiddleware,
  RunResult,
  RunStatus,
  StopReason,
} from "./loop/run-types.js";
export {
  type BranchSummaryEntry,
  type CompactionEntry,
  type CustomEntry,
  type Entry,
  type EntryInput,
  EntrySchema,
  type EntryType,
  type MessageEntry,
  type ThinkingLevel,
  ThinkingLevelSchema,
} from "./model/entry.js";
export { EntryIdSchema, SessionIdSchema } from "./model/ids.js";
export {
  type AssistantMessage,
  type Message,
  MessageSchema,
  type SystemMessage,
  type TokenUsage,
  type ToolMessage,
  type UserMessage,
} from "./model/message.js";
export {
  type FilePart,
  type Part,
  PartSchema,
  type ReasoningPart,
  type TextPart,
  type ToolCallPart,
  type ToolResultOutput,
  type ToolResultPart,
} from "./model/parts.js";
export { type RunEvent, RunEventSchema, type RunEventType } from "./model/run-events.js";
// Sessions, entries, messages and parts
export { type SessionInit, type SessionMeta, SessionMetaSchema, type TraceContext } from "./model/session.js";
export { type Snapshot, SnapshotSchema } from "./model/snapshot.js";
export type { Approval } from "./permissions/approvals.js";
export type { PermissionReply } from "./permissions/ask.js";
export type { PendingPermission, PermissionHandler } from "./permissions/pending-permissions.js";
// Permissions and approvals
export {
  type PermissionAction,
  type PermissionConfig,
  PermissionConfigSchema,
  type PermissionRule,
  PermissionRuleSchema,
} from "./permissions/permission.js";
export type { PlanApprovalResult } from "./plan/approve.js";
export type { PlanApprovalHandler, PlanApprovalRequest } from "./plan/plan-gate.js";
export { type BuiltinToolsOptions, builtinTools } from "./runtime/builtin-tools.js";
export type {
  CompactOptions,
  CompactResult,
  ResumeOptions,
  Runtime,
  RuntimeOptions,
  SessionDriver,
  SwitchLeafOptions,
  SwitchLeafResult,
} from "./runtime/types.js";
// Running agents
export { createRuntime } from "./runtime.js";
export { type SessionExport, SessionExportSchema } from "./store/export-format.js";
export { FileStore } from "./store/file/file-store.js";
export type { FileStoreOptions } from "./store/file/file-store-options.js";
// Stores
export { openStore } from "./store/open.js";
export type { Durability, StoreSpec } from "./store/spec.js";
export type { ListSessionsOptions, SessionPage, Store } from "./store/store.js";
export { genAiTelemetry } from "./telemetry/gen-ai.js";
export { ToolRegistry } from "./tools/registry.js";
// Tools
export {
  type AnyToolDefinition,
  defineTool,
  type PermissionRequest,
  type ToolAttachment,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "./tools/tool.js";

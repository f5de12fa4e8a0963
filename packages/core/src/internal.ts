/**
 * `@arbor/core/internal`: every building block of the runtime, for Arbor's own server, CLI, testkit,
 * tests and benchmarks. It is a superset of the public entry (`./index.ts`) over the same modules, so
 * a class from either entry is the same class. Names here may change in any release.
 */
export * from "./agents/from-config.js";
export * from "./agents/presets.js";
export * from "./config/load.js";
export * from "./config/resolve.js";
export * from "./config/schema.js";
export { abandonedEntries, abandonedMessages } from "./context/branch-summary.js";
export { CONTINUE_ENTRY_TYPE } from "./context/compactor.js";
export * from "./context/context-size.js";
export * from "./context/cut.js";
export * from "./context/overflow.js";
export * from "./context/prune.js";
export { SUMMARY_MAX_TOKENS, Summarizer, type SummarizerEnv } from "./context/summarizer.js";
export * from "./context/summary-prompt.js";
export * from "./context/token-counter.js";
export * from "./context/tokens.js";
export * from "./custom-entries.js";
export * from "./errors.js";
export * from "./events/debug-records.js";
export * from "./events/index.js";
export * from "./goal/index.js";
export type { ReplaySpec } from "./goal/replay.js";
export * from "./interop/index.js";
export { type Embedder, modelEmbedder } from "./knowledge/embedder.js";
export { type AddReport, KnowledgeBase, type KnowledgeHit, type KnowledgeSearch } from "./knowledge/knowledge-base.js";
export * from "./llm/cache/cache-store.js";
export { FileCacheStore } from "./llm/cache/file-cache-store.js";
export { canonicalJson, decodeValue, encodeValue } from "./llm/cache/json-value.js";
export * from "./llm/cache/llm-cache.js";
export * from "./llm/cache/recording.js";
export * from "./llm/cache/request-key.js";
export * from "./llm/cassette/cassette-file.js";
export * from "./llm/cassette/cassette-player.js";
export { CassetteRecorder, type CassetteRecorderOptions } from "./llm/cassette/cassette-recorder.js";
export * from "./llm/catalog.js";
export { EMBEDDING_PROVIDERS, embeddingLoader } from "./llm/embedding-providers.js";
export { type LlmCall, type LlmCallDetail, LlmCallLog, type LlmCallOutput } from "./llm/llm-call-log.js";
export * from "./llm/model-ref.js";
export * from "./llm/model-wrapper.js";
export { PROVIDER_DEFINITIONS, type ProviderDefinition } from "./llm/providers/index.js";
export * from "./llm/registry.js";
export {
  classifyProviderError,
  DEFAULT_RETRY,
  type ProviderFailure,
  type RetryNotice,
  retryAfterMs,
  retryDelay,
} from "./llm/retry.js";
export { effortForBudget, thinkingCallOptions } from "./llm/thinking.js";
export type { RunLaunch, RunObserver } from "./loop/extension.js";
export { INHERIT_ENTRY_TYPE } from "./loop/inherited-context.js";
export { appendCustom, appendEntry, appendMessage } from "./loop/journal.js";
export * from "./loop/reminders.js";
export { type ResumePoint, type ResumeTally, resumePoint, tallyRun } from "./loop/resume-point.js";
export type { RunContext, RunExtension, ToolCallInfo } from "./loop/run-context.js";
export { RUN_ERROR_ENTRY_TYPE, type RunErrorData, RunErrorDataSchema } from "./loop/run-error.js";
export { MAX_PROMPT_BYTES } from "./loop/run-input.js";
export { INTERRUPTED_OUTPUT } from "./loop/tool-runner.js";
export { type SpendCap, TraceSpend } from "./loop/trace-spend.js";
export * from "./loop/types.js";
export { RESUMED_INTERRUPTED_OUTPUT } from "./loop/wake.js";
export * from "./mcp/index.js";
export * from "./memory/memory-files.js";
export { type MemoryHit, searchMemory } from "./memory/memory-search.js";
export * from "./middleware/debug-middleware.js";
export * from "./middleware/pipeline.js";
export * from "./model/entry.js";
export * from "./model/ids.js";
export * from "./model/message.js";
export * from "./model/parts.js";
export * from "./model/run-events.js";
export * from "./model/session.js";
export * from "./model/snapshot.js";
export * from "./model/time.js";
export * from "./model/validate.js";
export {
  type ApprovalPlaces,
  addToApprovalFile,
  approvalFilePath,
  type DurableScope,
  readApprovalFile,
  removeFromApprovalFile,
} from "./permissions/approval-file.js";
export { type ApprovalLookup, listScopedApprovals, revokeScopedApproval } from "./permissions/approval-scopes.js";
export {
  APPROVAL_ENTRY_TYPE,
  type Approval,
  type ApprovalRule,
  ApprovalSchema,
  type ApprovalScope,
  ApprovalScopeSchema,
  approvalRulesFor,
  approvalsOnPath,
  isApproved,
  type ListedApproval,
  listApprovals,
} from "./permissions/approvals.js";
export * from "./permissions/ask.js";
export * from "./permissions/permission.js";
export * from "./permissions/wildcard.js";
export * from "./plan/index.js";
export * from "./prompt/instructions.js";
export { fitMemory } from "./prompt/memory-budget.js";
export * from "./prompt/system-prompt.js";
export { type BuiltinToolsOptions, builtinTools } from "./runtime/builtin-tools.js";
export { pythonReplExtension } from "./runtime/features.js";
export { memoryExtractExtension, parseMemories } from "./runtime/memory-extract.js";
export * from "./runtime/types.js";
export { type CompactInput, type CompactOutcome, compact as compactContext } from "./runtime/write-compaction.js";
export { createRuntime } from "./runtime.js";
export { type SecurityDecision, SecurityGateway, securityExtension, securityMiddleware } from "./security/gateway.js";
export { BUILTIN_RULES, type SecurityRule, SecurityRuleSchema, STRUCTURAL_RULES } from "./security/rules.js";
export * from "./session/context.js";
export * from "./session/delete-entry.js";
export {
  applyGoalCompaction,
  GOAL_COMPACTION_ENTRY_TYPE,
  type GoalCompactionData,
  GoalCompactionDataSchema,
} from "./session/goal-collapse.js";
export { migrateEntry, migrateSessionMeta } from "./session/migrate.js";
export * from "./session/prune-entry.js";
export * from "./session/tree.js";
export * from "./snapshot/git-snapshots.js";
export * from "./snapshot/revert.js";
export * from "./snapshot/snapshot-entry.js";
export * from "./snapshot/snapshot-extension.js";
export { steeringExtension, steerSession } from "./steering/steering.js";
export * from "./store/event-records.js";
export * from "./store/export-format.js";
export { FileStore } from "./store/file/file-store.js";
export type { FileStoreOptions } from "./store/file/file-store-options.js";
export type { InboxMessage, InboxPage } from "./store/inbox.js";
export * from "./store/keyed-lock.js";
export { type LeaseHolder, type SessionLease, sessionBusy, withLease } from "./store/lease.js";
export * from "./store/live-path.js";
export { openStore } from "./store/open.js";
export { newSessionMeta } from "./store/session-meta.js";
export * from "./store/spec.js";
export * from "./store/store.js";
export { mentionCall, mentionsExtension } from "./subagents/mentions.js";
export {
  DelegateInputSchema,
  delegateTool,
  ExploreInputSchema,
  exploreTool,
  type SubAgentMetadata,
} from "./subagents/sub-agent-tools.js";
export { SubTraceIds } from "./subagents/sub-trace-ids.js";
export type * from "./subagents/sub-trace-runner.js";
export { subTracesKey } from "./subagents/sub-trace-runner.js";
export { DEFAULT_CONCURRENT_SUB_TRACES, DELEGATE_CONTEXT, EXPLORE_CONTEXT } from "./subagents/sub-traces.js";
export { type GenAiTelemetryOptions, genAiTelemetry } from "./telemetry/gen-ai.js";
export * from "./todos/todo-record.js";
export * from "./todos/todo-store.js";
export { TodoReadInputSchema, todoReadTool } from "./todos/todoread.js";
export { TodoWriteInputSchema, todoWriteTool } from "./todos/todowrite.js";
export * from "./tools/index.js";
export { type ProgressThrottle, throttleProgress } from "./tools/progress-throttle.js";
export * from "./trace/index.js";

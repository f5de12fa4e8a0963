/**
 * `@arbor/core/trace`: queries over a finished or running trace — its pages, timeline, tool statistics,
 * message view and sub-traces. Used by the server's trace endpoints and the CLI's `trace` commands.
 */
export { messageTrace, type TraceMessage, type TraceToolCall } from "../trace/message-trace.js";
export { readTimeline } from "../trace/timeline-read.js";
export { type FoundToolCall, findToolCalls, type ToolStats, toolStats } from "../trace/tool-stats.js";
export { pageSortedTrace, type SortedTrace, sortTrace, type TracePage } from "../trace/trace-page.js";
export { getTrace, goalMessages, listSubTraces } from "../trace/trace-query.js";
export { parseTraceTime } from "../trace/trace-time.js";

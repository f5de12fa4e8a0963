import type { SubTraceMetadata } from "../goal/goal-tree.js";
import type { RunResult } from "../loop/types.js";
import type { Entry, SubagentResultMetadata, SubagentStatus } from "../model/entry.js";
import type { RunEvent } from "../model/run-events.js";
import { cutText } from "../model/text.js";
import type { Store } from "../store/store.js";
import type { SubTraceOutcome } from "./sub-trace-runner.js";

/** Bounds on what a result entry keeps of a branch's timeline, so a long branch cannot bloat its parent. */
const MAX_PROCESS_EVENTS = 200;
const MAX_EVIDENCE = 50;
const EVIDENCE_CHARS = 300;
const LAST_MESSAGE_CHARS = 500;

interface ToolRoute {
  tool: string;
  calls: number;
  errors: number;
  totalDurationMs: number;
}

/** Everything the parent keeps of one finished branch. */
export interface BranchRecord {
  outcome: SubTraceOutcome;
  metadata: SubTraceMetadata;
  processEvents: unknown[];
  evidenceSummaries: unknown[];
  toolRuntimeRoutes: ToolRoute[];
  selectedSource: "final_text" | "last_assistant_message" | "status";
  /** The sources the branch actually offered, in the order they are preferred (the status always is). */
  inputSources: Array<"final_text" | "last_assistant_message" | "status">;
}

/**
 * The branch's last assistant message: read back from its leaf an entry at a time, as it is nearly
 * always the leaf or a step before it. Reading the whole path instead cost a long branch every
 * message it wrote (tool outputs included) at its end, on the parent's time.
 */
async function lastAssistantEntry(store: Store, traceId: string, leafId: string | null | undefined): Promise<Entry | undefined> {
  for (let id = leafId ?? null; id !== null; ) {
    const entry = await store.getEntry(traceId, id);
    if (!entry) return undefined;
    if (entry.type === "message" && entry.message.role === "assistant") return entry;
    id = entry.parentId;
  }
  return undefined;
}

/**
 * Watches a branch's run stream and, when it ends, reads what the session holds, to build the
 * `subagent_result` metadata and the sub-trace's metadata on the parent's goal.
 */
export function branchRecorder(now: () => number) {
  const processEvents: unknown[] = [];
  const evidence: unknown[] = [];
  const routes = new Map<string, ToolRoute>();
  return {
    see(event: RunEvent): void {
      switch (event.type) {
        case "tool_start":
          if (processEvents.length < MAX_PROCESS_EVENTS) {
            processEvents.push({ type: "tool_start", tool: event.tool, callId: event.call_id, at: now() });
          }
          return;
        case "tool_end": {
          if (processEvents.length < MAX_PROCESS_EVENTS) {
            processEvents.push({
              type: "tool_end",
              tool: event.tool,
              callId: event.call_id,
              isError: event.is_error,
              durationMs: event.duration_ms,
              at: now(),
            });
          }
          if (evidence.length < MAX_EVIDENCE) {
            evidence.push({
              tool: event.tool,
              callId: event.call_id,
              ok: !event.is_error,
              excerpt: cutText(event.output, EVIDENCE_CHARS),
            });
          }
          const route = routes.get(event.tool) ?? { tool: event.tool, calls: 0, errors: 0, totalDurationMs: 0 };
          route.calls++;
          if (event.is_error) route.errors++;
          route.totalDurationMs += event.duration_ms ?? 0;
          routes.set(event.tool, route);
          return;
        }
        case "llm_end":
          if (processEvents.length < MAX_PROCESS_EVENTS) {
            processEvents.push({ type: "llm_end", model: event.model, durationMs: event.duration_ms, at: now() });
          }
          return;
        default:
          return;
      }
    },

    async finish(
      store: Store,
      branch: { traceId: string; task: string; status: SubagentStatus; result: RunResult },
    ): Promise<BranchRecord> {
      const meta = await store.getSession(branch.traceId).catch(() => undefined);
      const entry = meta ? await lastAssistantEntry(store, branch.traceId, meta.leafEntryId).catch(() => undefined) : undefined;
      let last: SubTraceMetadata["lastMessage"] = null;
      if (entry?.type === "message") {
        const text = entry.message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
        last = {
          role: "assistant",
          ...(entry.message.description !== undefined ? { description: entry.message.description } : {}),
          content: text ? cutText(text, LAST_MESSAGE_CHARS) : null,
          createdAt: entry.timestamp,
        };
      }
      const finalText = branch.result.text.trim();
      const lastText = last?.content?.trim() ?? "";
      const selectedSource = finalText ? "final_text" : lastText ? "last_assistant_message" : "status";
      const body = finalText || lastText || branch.result.error?.message || "The branch ended without a report.";
      const summary = branch.status === "completed" ? body : `[${branch.status}] ${body}`;
      const stats = {
        messageCount: meta?.totalMessages ?? 0,
        totalTokens: meta?.totalTokens ?? 0,
        totalCost: meta?.totalCost ?? 0,
      };
      return {
        outcome: { traceId: branch.traceId, task: branch.task, status: branch.status, summary },
        metadata: { task: branch.task, status: branch.status, summary, lastMessage: last, stats },
        processEvents,
        evidenceSummaries: evidence,
        toolRuntimeRoutes: [...routes.values()],
        selectedSource,
        inputSources: [
          ...(finalText ? (["final_text"] as const) : []),
          ...(lastText ? (["last_assistant_message"] as const) : []),
          "status" as const,
        ],
      };
    },
  };
}

/** The `subagent_result` metadata, with its canonical projection. Pure. */
export function resultMetadata(record: BranchRecord): SubagentResultMetadata {
  return {
    processEvents: record.processEvents,
    evidenceSummaries: record.evidenceSummaries,
    toolRuntimeRoutes: record.toolRuntimeRoutes,
    subagentProjection: {
      summary: record.outcome.summary,
      status: record.outcome.status,
      diagnostics: {
        selectedSource: record.selectedSource,
        inputSources: record.inputSources,
        fallbackUsed: record.selectedSource !== "final_text",
      },
    },
  };
}

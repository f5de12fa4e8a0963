import { ArborError } from "../../errors.js";
import type { Entry } from "../../model/entry.js";
import type { Message } from "../../model/message.js";
import type { ToolResultOutput } from "../../model/parts.js";
import { parseOrThrow } from "../../model/validate.js";
import type { SessionExport } from "../../store/export-format.js";
import { branchTo } from "../path.js";
import { ATIF_SCHEMA_VERSION, type AtifStep, type AtifTrajectory, AtifTrajectorySchema } from "./schema.js";

type Step = Omit<AtifStep, "step_id">;

export interface AtifOptions {
  /** The branch to write (default: the session's active path, root → leaf). */
  leaf?: string;
  /** Written as `agent.version`. */
  agentVersion: string;
  /**
   * Exports of the sub-traces the branch delegated to, by session id: each is embedded as a
   * `subagent_trajectories` entry (its own active path, its own sub-traces in turn) and referenced
   * by `trajectory_id`. A sub-trace not given is referenced by `trajectory_path` `<id>.json`, the
   * file `arbor sessions export <id> --format atif --out <id>.json` writes.
   */
  subSessions?: ReadonlyMap<string, SessionExport>;
}

/** The sub-trace sessions a branch of a session delegated to, in the order it did (for `subSessions`). */
export function atifSubSessionIds(data: SessionExport, leaf?: string): string[] {
  const end = leaf ?? data.session.leafEntryId ?? undefined;
  const ids = new Set<string>();
  for (const e of end === undefined ? [] : branchTo(data.entries, end, data.session.id)) {
    if (e.type === "subagent_result") ids.add(e.subSessionId);
    if (e.type === "message" && e.message.role === "assistant") {
      for (const p of e.message.content) {
        const sub = p.type === "tool-call" ? (p as { subSessionId?: unknown }).subSessionId : undefined;
        if (typeof sub === "string") ids.add(sub);
      }
    }
  }
  return [...ids];
}

/**
 * One branch of a session as an ATIF trajectory: a trajectory is a sequence, so a tree gives the
 * path to its leaf. Each assistant message is an agent step whose tool results (from the tool
 * messages after it) are its observation; a call that launched a sub-agent names the sub-trace
 * as its subagent trajectory. Compactions and summaries are system steps. Pure; the result is
 * checked against the ATIF schema.
 */
export function toAtif(data: SessionExport, opts: AtifOptions): AtifTrajectory {
  return parseOrThrow(AtifTrajectorySchema, trajectoryOf(data, opts, new Set([data.session.id])), "ATIF trajectory");
}

function trajectoryOf(data: SessionExport, opts: AtifOptions, within: ReadonlySet<string>): AtifTrajectory {
  const s = data.session;
  // Embedded when given (and not an ancestor: a cycle would never end), else a file reference.
  const embedded = new Map<string, SessionExport>();
  for (const id of atifSubSessionIds(data, opts.leaf)) {
    const sub = opts.subSessions?.get(id);
    if (sub !== undefined && !within.has(id)) embedded.set(id, sub);
  }
  const refTo = (id: string) =>
    embedded.has(id) ? { trajectory_id: id, session_id: id } : { session_id: id, trajectory_path: `${id}.json` };
  const leaf = opts.leaf ?? s.leafEntryId ?? undefined;
  const path = leaf === undefined ? [] : branchTo(data.entries, leaf, s.id);
  const steps: Step[] = [];
  const stepOfCall = new Map<string, Step>();
  const subOfCall = new Map<string, string>();
  let effort: string | undefined;
  for (const e of path) {
    if (e.type === "thinking_level_change") effort = String(e.thinkingLevel);
    const step = stepFor(e, effort, refTo);
    if (step === undefined) {
      if (e.type === "message" && e.message.role === "tool")
        attachResults(
          e.message,
          steps,
          stepOfCall,
          (id) => {
            const sub = subOfCall.get(id);
            return sub === undefined ? undefined : refTo(sub);
          },
          e.timestamp,
        );
      continue;
    }
    steps.push(step);
    if (e.type === "message" && e.message.role === "assistant") {
      for (const p of e.message.content) {
        if (p.type !== "tool-call") continue;
        stepOfCall.set(p.toolCallId, step);
        const sub = (p as { subSessionId?: unknown }).subSessionId;
        if (typeof sub === "string") subOfCall.set(p.toolCallId, sub);
      }
    }
  }
  if (steps.length === 0) {
    throw new ArborError(
      "invalid_input",
      `Session ${s.id} has nothing on its path to export as ATIF (a trajectory needs at least one step): send it a message first, or pick another --leaf.`,
    );
  }
  const numbered = steps.map((st, i) => ({ step_id: i + 1, ...st }));
  const sum = (f: (m: NonNullable<AtifStep["metrics"]>) => number | undefined) =>
    numbered.reduce((n, st) => n + (st.metrics ? (f(st.metrics) ?? 0) : 0), 0);
  const model = numbered.find((st) => st.model_name)?.model_name;
  const origin = (s as { importedFrom?: { agent?: string; version?: string } }).importedFrom;
  const inner = new Set([...within, ...embedded.keys()]);
  const subagents = [...embedded.values()].map((sub) => trajectoryOf(sub, { ...opts, leaf: undefined } as AtifOptions, inner));
  const trajectory: AtifTrajectory = {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: s.id,
    trajectory_id: s.id,
    agent: {
      name: origin?.agent ?? "arbor",
      version: origin?.version ?? opts.agentVersion,
      ...(model ? { model_name: model } : {}),
    },
    steps: numbered,
    final_metrics: {
      total_prompt_tokens: sum((m) => m.prompt_tokens),
      total_completion_tokens: sum((m) => m.completion_tokens),
      total_cached_tokens: sum((m) => m.cached_tokens),
      total_cost_usd: sum((m) => m.cost_usd),
      total_steps: numbered.length,
    },
    extra: {
      arbor: {
        leafEntryId: leaf ?? null,
        ...(s.title ? { title: s.title } : {}),
        ...(s.cwd ? { cwd: s.cwd } : {}),
        ...(s.parentSessionId ? { parentSessionId: s.parentSessionId } : {}),
      },
    },
    ...(subagents.length > 0 ? { subagent_trajectories: subagents } : {}),
  };
  return trajectory;
}

function text(parts: ReadonlyArray<{ type: string; text?: unknown }>, type = "text"): string {
  return parts
    .filter((p) => p.type === type)
    .map((p) => String(p.text ?? ""))
    .join("\n");
}

type RefTo = (
  subSessionId: string,
) => NonNullable<NonNullable<AtifStep["observation"]>["results"][number]["subagent_trajectory_ref"]>[number];

function stepFor(e: Entry, effort: string | undefined, refTo: RefTo): Step | undefined {
  const base = { timestamp: e.timestamp, extra: { entryId: e.id } };
  switch (e.type) {
    case "message":
      return messageStep(e.message, base, effort);
    case "compaction":
      return { ...base, source: "system", message: "Context compacted", observation: { results: [{ content: e.summary }] } };
    case "branch_summary":
      return {
        ...base,
        source: "system",
        message: "Summary of the branch left",
        observation: { results: [{ content: e.summary }] },
      };
    case "custom_message":
      return {
        ...base,
        source: "system",
        message: typeof e.content === "string" ? e.content : text(e.content),
        extra: { ...base.extra, customType: e.customType },
      };
    case "subagent_result":
      return {
        ...base,
        source: "system",
        message: `Sub-agent ${e.status}`,
        observation: { results: [{ content: e.summary, subagent_trajectory_ref: [refTo(e.subSessionId)] }] },
      };
    case "thinking_level_change":
    case "model_change":
    case "custom":
    case "label":
    case "session_info":
    case "subagent_batch":
      return undefined;
  }
}

function messageStep(
  m: Message,
  base: { timestamp: string; extra: Record<string, unknown> },
  effort: string | undefined,
): Step | undefined {
  switch (m.role) {
    case "system":
      return { ...base, source: "system", message: text(m.content) };
    case "user":
      return { ...base, source: "user", message: text(m.content) };
    case "tool":
      return undefined;
    case "assistant": {
      const reasoning = text(m.content, "reasoning");
      const calls = m.content.flatMap((p) =>
        p.type === "tool-call"
          ? [
              {
                tool_call_id: p.toolCallId,
                function_name: p.toolName,
                arguments: isRecord(p.input) ? p.input : { input: p.input ?? null },
                ...(typeof p.subSessionId === "string" ? { extra: { sub_session_id: p.subSessionId } } : {}),
              },
            ]
          : [],
      );
      const t = m.tokens;
      return {
        ...base,
        source: "agent",
        message: text(m.content),
        // Each assistant message of a session is one model call.
        llm_call_count: 1,
        ...(m.model ? { model_name: m.model } : {}),
        ...(effort && effort !== "off" ? { reasoning_effort: effort } : {}),
        ...(reasoning ? { reasoning_content: reasoning } : {}),
        ...(calls.length ? { tool_calls: calls } : {}),
        ...(t || m.cost !== undefined
          ? {
              metrics: {
                ...(t
                  ? {
                      prompt_tokens: t.input + t.cacheRead + t.cacheWrite,
                      completion_tokens: t.output,
                      cached_tokens: t.cacheRead,
                      ...(t.cacheWrite || t.reasoning
                        ? { extra: { cache_creation_input_tokens: t.cacheWrite, reasoning_tokens: t.reasoning } }
                        : {}),
                    }
                  : {}),
                ...(m.cost !== undefined ? { cost_usd: m.cost } : {}),
              },
            }
          : {}),
        ...(m.error ? { extra: { ...base.extra, error: m.error.message } } : {}),
      };
    }
  }
}

/**
 * Tool results go to the observation of the step that made the call; a result whose call is not on
 * the path (an imported session's) gets a system step that names the call in `extra`, since a
 * `source_call_id` must name a call of its own step.
 */
function attachResults(
  m: Message,
  steps: Step[],
  stepOfCall: Map<string, Step>,
  subRef: (toolCallId: string) => ReturnType<RefTo> | undefined,
  at: string,
): void {
  for (const p of m.content) {
    if (p.type !== "tool-result") continue;
    const sub = subRef(p.toolCallId);
    const owner = stepOfCall.get(p.toolCallId);
    const ownCall = owner?.tool_calls?.some((c) => c.tool_call_id === p.toolCallId) === true;
    const isError = p.output.type === "error-text" || p.output.type === "error-json";
    const extra = {
      ...(ownCall ? {} : { tool_call_id: p.toolCallId, tool_name: p.toolName }),
      ...(isError ? { is_error: true } : {}),
    };
    const result = {
      ...(ownCall ? { source_call_id: p.toolCallId } : {}),
      content: outputText(p.output),
      ...(sub ? { subagent_trajectory_ref: [sub] } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    const target = owner ?? { timestamp: at, source: "system" as const, message: `Result of ${p.toolName}` };
    if (!owner) {
      steps.push(target);
      stepOfCall.set(p.toolCallId, target);
    }
    target.observation = { results: [...(target.observation?.results ?? []), result] };
  }
}

function outputText(o: ToolResultOutput): string {
  return o.type === "text" || o.type === "error-text" ? o.value : JSON.stringify(o.value);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

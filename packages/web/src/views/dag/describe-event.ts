import { formatCost, formatDuration, formatTokens, truncate } from "../../lib/format.js";
import type { WatchMessage } from "../../lib/trace-watch.js";

/** What a live watch event changed, in words for the events list (not a bare `#n message_added`). */
export interface EventLine {
  kind: "goal" | "message" | "subtrace" | "trace" | "other";
  text: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

function goalName(goal: Record<string, unknown>): string {
  const id = str(goal.id) ?? "?";
  const title = str(goal.description) ?? str(goal.title);
  return title ? `${id} “${truncate(title, 60)}”` : id;
}

function updateText(updates: Record<string, unknown>): string {
  const parts: string[] = [];
  if (str(updates.status)) parts.push(`is now ${String(updates.status).replace("_", " ")}`);
  if (str(updates.summary)) parts.push(`result: ${truncate(String(updates.summary), 80)}`);
  const rest = Object.keys(updates).filter((k) => k !== "status" && k !== "summary");
  if (rest.length > 0) parts.push(`changed ${rest.join(", ")}`);
  return parts.join("; ") || "updated";
}

function messageText(message: Record<string, unknown>): string {
  const role = str(message.role) ?? "message";
  const what = str(message.description);
  const tokens = rec(message.tokens);
  const facts = [
    typeof tokens.input === "number" && typeof tokens.output === "number"
      ? `${formatTokens(tokens.input + tokens.output)} tokens`
      : "",
    typeof message.cost === "number" ? formatCost(message.cost) : "",
    typeof message.duration_ms === "number" ? formatDuration(message.duration_ms) : "",
  ].filter(Boolean);
  const goal = str(message.goal_id);
  const head = role === "tool" && what ? `tool ${what} returned` : role === "assistant" ? "assistant replied" : `${role} message`;
  const error = str(message.error) ? ` (failed: ${truncate(String(message.error), 60)})` : "";
  return `${head}${goal ? ` under goal ${goal}` : ""}${facts.length ? ` · ${facts.join(" · ")}` : ""}${error}`;
}

export function describeEvent(m: WatchMessage): EventLine {
  switch (m.event) {
    case "goal_added":
      return { kind: "goal", text: `Goal ${goalName(rec(m.goal))} added${str(m.parent_id) ? ` under ${m.parent_id}` : ""}` };
    case "goal_updated":
      return { kind: "goal", text: `Goal ${str(m.goal_id) ?? "?"} ${updateText(rec(m.updates))}` };
    case "message_added":
      return { kind: "message", text: messageText(rec(m.message)) };
    case "sub_trace_started":
      return {
        kind: "subtrace",
        text: `${str(m.agent_type) ?? "Sub"}-agent started${str(m.task) ? `: ${truncate(String(m.task), 80)}` : ""}`,
      };
    case "sub_trace_completed":
      return {
        kind: "subtrace",
        text: `Sub-agent ${str(m.status) ?? "ended"}${str(m.summary) ? `: ${truncate(String(m.summary), 80)}` : ""}`,
      };
    case "trace_started":
      return { kind: "trace", text: `Run started (${str(m.kind) ?? "prompt"}${str(m.agent) ? `, ${m.agent}` : ""})` };
    case "trace_completed":
      return { kind: "trace", text: `Run ended (${str(m.status) ?? "done"})` };
    default:
      return { kind: "other", text: m.event.replace(/_/g, " ") };
  }
}

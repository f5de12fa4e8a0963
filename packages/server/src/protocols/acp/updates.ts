import type { PlanEntry, PlanEntryStatus, SessionUpdate } from "@agentclientprotocol/sdk";
import type { GoalTree } from "@arbor/core/session";
import { elicitationElsewhere, questionElsewhere } from "../shared/asks.js";
import type { RunEventWire, WireEvent } from "../shared/run-output.js";
import { unreachable } from "../shared/unreachable.js";
import { toolCallEnded, toolCallStarted } from "./tool-calls.js";

/** A plan step's or goal's status in ACP's three: skipped, failed and abandoned ones are over too. */
function entryStatus(status: string): PlanEntryStatus {
  switch (status) {
    case "pending":
      return "pending";
    case "running":
    case "in_progress":
      return "in_progress";
    default:
      return "completed";
  }
}

interface PlanStep {
  id: string | number;
  title: string;
  status: string;
}

/** A step that did not succeed says so in its text, since ACP's statuses cannot. */
function stepEntry(step: PlanStep): PlanEntry {
  const over = step.status === "failed" || step.status === "skipped" || step.status === "abandoned";
  return { content: over ? `${step.title} (${step.status})` : step.title, priority: "medium", status: entryStatus(step.status) };
}

/** The goal tree as an ACP plan: every goal in tree order, the one in focus in progress. */
export function goalTreePlan(tree: GoalTree): SessionUpdate {
  const children = new Map<string | null, GoalTree["goals"]>();
  for (const goal of tree.goals) children.set(goal.parentId, [...(children.get(goal.parentId) ?? []), goal]);
  const entries: PlanEntry[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const goal of children.get(parent) ?? []) {
      entries.push({
        ...stepEntry({ id: goal.id, title: `${"  ".repeat(depth)}${goal.description}`, status: goal.status }),
        priority: depth === 0 ? "high" : "medium",
      });
      walk(goal.id, depth + 1);
    }
  };
  walk(null, 0);
  return { sessionUpdate: "plan", entries };
}

/**
 * One prompt turn's run events as ACP session updates. It keeps what later events need: each tool
 * call's input (an edit's diff is shown again with its result) and the plan's steps (a step's
 * update resends the whole plan, as ACP plans are replaced, not patched). Asks are answered by the
 * agent, which asks the client with `session/request_permission`; they are not updates.
 */
export class AcpRunWire implements RunEventWire<SessionUpdate> {
  private readonly inputs = new Map<string, string>();
  /** The client terminal each running call's command is in. */
  private readonly terminals = new Map<string, string>();
  private steps: PlanStep[] = [];

  constructor(private readonly cwd: string) {}

  event({ event }: WireEvent): SessionUpdate[] {
    switch (event.type) {
      case "token":
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.content } }];
      case "reasoning":
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.content } }];
      case "tool_start":
        this.inputs.set(event.call_id, event.input);
        return [{ sessionUpdate: "tool_call", ...toolCallStarted(event.call_id, event.tool, event.input, this.cwd) }];
      case "tool_progress": {
        const terminalId = event.metadata?.terminalId;
        // A command in the client's terminal: the call shows that terminal, live.
        if (typeof terminalId === "string") this.terminals.set(event.call_id, terminalId);
        if (event.title === undefined && typeof terminalId !== "string") return [];
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.call_id,
            ...(event.title === undefined ? {} : { title: `${event.tool}: ${event.title}` }),
            ...(typeof terminalId === "string" ? { content: [{ type: "terminal", terminalId }] } : {}),
          },
        ];
      }
      case "tool_end": {
        const input = this.inputs.get(event.call_id);
        const terminalId = this.terminals.get(event.call_id);
        this.inputs.delete(event.call_id);
        this.terminals.delete(event.call_id);
        const ended = toolCallEnded(event.call_id, event.tool, input, event.output, event.is_error, this.cwd);
        // The content is replaced, not added to: the terminal stays shown beside the output.
        const content =
          terminalId === undefined ? ended.content : [{ type: "terminal" as const, terminalId }, ...(ended.content ?? [])];
        return [{ sessionUpdate: "tool_call_update", ...ended, ...(content === undefined ? {} : { content }) }];
      }
      case "plan_created":
        this.steps = event.plan.steps.map((s) => ({ id: s.id, title: s.title, status: s.status }));
        return [this.plan()];
      case "plan_updated":
        this.steps = this.steps.map((s) => (String(s.id) === String(event.step_id) ? { ...s, status: event.status } : s));
        return [this.plan()];
      case "plan_revised":
        this.steps = [
          ...this.steps.slice(0, event.keep_completed),
          ...event.revised_steps.map((s) => ({ id: s.id, title: s.title, status: s.status })),
        ];
        return [this.plan()];
      case "plan_approval_request":
        this.steps = event.steps.map((s) => ({ id: s.id, title: s.title, status: s.status }));
        return [this.plan()];
      case "question_request":
        // Asked as a request_permission when ACP can carry it (one choice); said as text when it cannot.
        return acpAsksQuestion(event)
          ? []
          : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n${questionElsewhere(event, "ACP")}\n` } }];
      case "permission_request":
      case "llm_start":
      case "llm_end":
      case "done":
      case "error":
        return [];
      // ACP has no request for an MCP server's form or page: said as text, answered at another door.
      case "elicitation_request":
        return [
          { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n${elicitationElsewhere(event, "ACP")}\n` } },
        ];
      case "elicitation_answered":
        return [];
      default:
        return unreachable("run event", event);
    }
  }

  /** Asks become client requests, not updates (see the class). */
  ask(): SessionUpdate[] {
    return [];
  }

  /** A turn's end is the prompt's response. */
  end(): SessionUpdate[] {
    return [];
  }

  private plan(): SessionUpdate {
    return { sessionUpdate: "plan", entries: this.steps.map(stepEntry) };
  }
}

/**
 * What ACP's `session/request_permission` can carry of a question: one choice among its options.
 * A free-text or multiple-choice question has no ACP shape; the turn shows it as text (see
 * `AcpRunWire`) and it is answered at another door while the run waits.
 */
export function acpAsksQuestion(event: { options?: unknown[]; multiple: boolean }): boolean {
  return (event.options?.length ?? 0) > 0 && !event.multiple;
}

import { randomUUID } from "node:crypto";
import type { Artifact, Message, Part, Task, TaskStatus } from "@a2a-js/sdk";
import { Role, TaskState } from "@a2a-js/sdk";
import type { RunEvent, Store } from "@arbor/core";
import { type Ask, questionText } from "../shared/asks.js";

/** Where the run events are kept in the session's event log (the runtime's record prefix). */
const RUN_PREFIX = "run.";
/** Log records read back when looking for the session's last run. */
const LOOK_BACK = 2_000;
/** The tools whose `path` argument names a file the run changed. */
const FILE_TOOLS = new Set(["write", "edit"]);

export const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

export const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

export function agentMessage(sessionId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId: sessionId,
    taskId: sessionId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function status(state: TaskState, sessionId: string, parts?: Part[]): TaskStatus {
  return {
    state,
    message: parts === undefined ? undefined : agentMessage(sessionId, parts),
    timestamp: new Date().toISOString(),
  };
}

/** An ask as the `input-required` status says it: a sentence, and the ask's id with the replies it takes. */
export function askParts(ask: Ask): Part[] {
  if (ask.kind === "question") {
    const { event } = ask;
    const how = event.options?.length
      ? `Reply with ${event.multiple ? "one or more of the options (in data: answers)" : "one of the options"}${event.custom ? " or your own answer" : ""}, or "dismiss".`
      : 'Reply with your answer, or "dismiss".';
    return [
      textPart(`${questionText(event)}\n${how}`),
      dataPart({
        ask: "question",
        askId: ask.id,
        question: event.question,
        ...(event.header === undefined ? {} : { header: event.header }),
        options: event.options ?? [],
        multiple: event.multiple,
        custom: event.custom,
      }),
    ];
  }
  if (ask.kind === "permission") {
    const what = `${ask.event.permission} ${ask.event.patterns.join(", ")}`.trim();
    return [
      textPart(`Permission needed: ${what}. Reply "yes" to allow once, "always" to always allow, or "no" to reject.`),
      dataPart({
        ask: "permission",
        askId: ask.id,
        permission: ask.event.permission,
        patterns: ask.event.patterns,
        replies: ["once", "always", "reject"],
      }),
    ];
  }
  const steps = ask.event.steps.map((s, i) => `${i + 1}. ${s.title}`).join("\n");
  return [
    textPart(`Approve the plan "${ask.event.title}"? Reply "yes" or "no".\n${steps}`),
    dataPart({ ask: "plan", askId: ask.planId, title: ask.event.title, replies: ["approve", "reject"] }),
  ];
}

/** What a run leaves for the client: its final answer, and the files it wrote or edited. */
export interface RunOutcome {
  state: TaskState;
  text?: string;
  error?: string;
  files: string[];
}

/** The answer and changed files as artifacts (one each, so a client picks what it needs by name). */
export function artifactsOf(outcome: RunOutcome): Artifact[] {
  const artifacts: Artifact[] = [];
  if (outcome.text !== undefined && outcome.text !== "") {
    artifacts.push({
      artifactId: "answer",
      name: "answer",
      description: "The run's final answer.",
      parts: [textPart(outcome.text)],
      metadata: undefined,
      extensions: [],
    });
  }
  if (outcome.files.length > 0) {
    artifacts.push({
      artifactId: "changed-files",
      name: "changed-files",
      description: "Files the run wrote or edited, as it named them.",
      parts: [dataPart({ files: outcome.files })],
      metadata: undefined,
      extensions: [],
    });
  }
  return artifacts;
}

/** Collects a run's outcome event by event (a live stream and a log read alike). */
export class OutcomeReader {
  private readonly files = new Set<string>();
  outcome: RunOutcome | undefined;

  constructor(private readonly sessionId: string) {}

  take(event: RunEvent): void {
    if (event.session_id !== undefined && event.session_id !== this.sessionId) return;
    switch (event.type) {
      case "tool_start": {
        if (!FILE_TOOLS.has(event.tool)) return;
        const path = pathOf(event.input);
        if (path !== undefined) this.files.add(path);
        return;
      }
      case "done":
        this.outcome = {
          state: TaskState.TASK_STATE_COMPLETED,
          ...(event.text === undefined ? {} : { text: event.text }),
          files: [...this.files],
        };
        return;
      case "error":
        this.outcome = {
          state: event.code === "aborted" ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED,
          error: event.content,
          files: [...this.files],
        };
        return;
      default:
        return;
    }
  }
}

function pathOf(input: string): string | undefined {
  try {
    const parsed = JSON.parse(input) as { path?: unknown };
    return typeof parsed.path === "string" ? parsed.path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The outcome of the session's last ended run, read back from its event log (so any server over the
 * store answers it, after a restart too); undefined when no run of it ended in what the log keeps.
 */
export async function lastOutcome(store: Store, sessionId: string): Promise<RunOutcome | undefined> {
  const last = await store.lastEventId(sessionId);
  const records = await store.listEvents(sessionId, { after: Math.max(0, last - LOOK_BACK), limit: LOOK_BACK });
  const runEvents = records
    .filter((r) => r.type.startsWith(RUN_PREFIX))
    .map((r) => ({ type: r.type.slice(RUN_PREFIX.length), ...r.data }) as RunEvent);
  let end = runEvents.length - 1;
  while (end >= 0 && runEvents[end]?.type !== "done" && runEvents[end]?.type !== "error") end--;
  if (end < 0) return undefined;
  let start = end - 1;
  while (start >= 0 && runEvents[start]?.type !== "done" && runEvents[start]?.type !== "error") start--;
  const reader = new OutcomeReader(sessionId);
  for (const event of runEvents.slice(start + 1, end + 1)) reader.take(event);
  return reader.outcome;
}

export function taskOf(sessionId: string, taskStatus: TaskStatus, artifacts: Artifact[] = []): Task {
  return { id: sessionId, contextId: sessionId, status: taskStatus, artifacts, history: [], metadata: undefined };
}

export const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]);

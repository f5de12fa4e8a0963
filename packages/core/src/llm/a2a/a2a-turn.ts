import type { Artifact, Message, Part, StreamResponse, Task, TaskStatus } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";

/** Where a turn's content goes as it arrives: the answer's text, and the remote's progress notes. */
export interface TurnSink {
  text(delta: string): void;
  note(delta: string): void;
}

const STATE_NAMES: Readonly<Record<number, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/** A task state as the A2A spec writes it (`input-required`), for what the parent model and the trace read. */
export function stateName(state: TaskState | undefined): string {
  return (state !== undefined && STATE_NAMES[state]) || "unknown";
}

/** States after which the remote does no more work on the task without being told something. */
const SETTLED = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

export const isSettled = (state: TaskState | undefined): boolean => state !== undefined && SETTLED.has(state);

/** One part as text: data as JSON, files by name and where they are (their bytes stay with the remote). */
export function partText(part: Part): string {
  const content = part.content;
  if (content === undefined) return "";
  switch (content.$case) {
    case "text":
      return content.value;
    case "data":
      return `\`\`\`json\n${JSON.stringify(content.value ?? null)}\n\`\`\``;
    case "url":
      return `[file ${part.filename || content.value}${part.mediaType ? ` (${part.mediaType})` : ""}: ${content.value}]`;
    case "raw":
      return `[file ${part.filename || "unnamed"}${part.mediaType ? ` (${part.mediaType})` : ""}, ${content.value.length} bytes]`;
  }
}

const partsText = (parts: readonly Part[] | undefined): string => (parts ?? []).map(partText).join("\n");

/** An artifact as the parent reads it: text alone as it is, anything else under the artifact's name. */
function artifactText(artifact: Artifact): string {
  const body = partsText(artifact.parts);
  const allText = artifact.parts.every((p) => p.content?.$case === "text");
  return allText ? body : `${artifact.name || artifact.artifactId}:\n${body}`;
}

/**
 * One delegated task as the remote streams it (or as polling reads it): its ids, its state, and its
 * content turned into the sub-run's text (artifacts and the agent's messages, which are its answer)
 * and notes (status messages while it works). Fed stream responses or whole tasks, in order.
 */
export class A2ATurn {
  taskId = "";
  contextId = "";
  state: TaskState | undefined;
  /** The latest status message's text: a question when input is required, the reason a task failed. */
  statusText = "";
  /** A direct reply (a Message and no task): the turn is over. */
  replied = false;
  private wrote = false;
  private readonly artifactsSeen = new Set<string>();
  private lastNote = "";
  /** Told when the task's id first arrives (see `idKnown`). */
  private onId: (() => void) | undefined;

  constructor(private readonly sink: TurnSink) {}

  /** The task's id once it has arrived, or `""` when `giveUp` settles first (the exchange ended, a time limit). */
  idKnown(giveUp: Promise<unknown>): Promise<string> {
    if (this.taskId) return Promise.resolve(this.taskId);
    return new Promise<string>((resolve) => {
      const settle = () => resolve(this.taskId);
      this.onId = settle;
      giveUp.then(settle, settle);
    });
  }

  take(response: StreamResponse): void {
    const payload = response.payload;
    if (payload === undefined) return;
    switch (payload.$case) {
      case "task":
        this.task(payload.value);
        return;
      case "message":
        this.message(payload.value);
        return;
      case "statusUpdate":
        this.ids(payload.value.taskId, payload.value.contextId);
        this.status(payload.value.status);
        return;
      case "artifactUpdate": {
        this.ids(payload.value.taskId, payload.value.contextId);
        const artifact = payload.value.artifact;
        if (artifact === undefined) return;
        // A chunk appended to an artifact goes on where it left off; a new artifact starts a paragraph.
        if (payload.value.append && this.artifactsSeen.has(artifact.artifactId)) this.write(partsText(artifact.parts), false);
        else this.artifact(artifact);
        return;
      }
    }
  }

  /** A whole task (the first event of a stream, a non-streaming answer, a poll): what is new in it. */
  task(task: Task): void {
    this.ids(task.id, task.contextId);
    for (const artifact of task.artifacts) if (!this.artifactsSeen.has(artifact.artifactId)) this.artifact(artifact);
    this.status(task.status);
  }

  message(message: Message): void {
    this.ids(message.taskId, message.contextId);
    this.write(partsText(message.parts), true);
    if (!message.taskId) this.replied = true;
  }

  /** Whether anything of an answer arrived (artifacts, messages). */
  get answered(): boolean {
    return this.wrote;
  }

  private ids(taskId: string, contextId: string): void {
    if (taskId) {
      this.taskId = taskId;
      this.onId?.();
      this.onId = undefined;
    }
    if (contextId) this.contextId = contextId;
  }

  private status(status: TaskStatus | undefined): void {
    if (status === undefined) return;
    this.state = status.state;
    const text = partsText(status.message?.parts).trim();
    if (text === "") return;
    this.statusText = text;
    // While it works, what it says is progress; once settled it is the answer, a question or a reason (see the model).
    if (!isSettled(status.state) && text !== this.lastNote) {
      this.lastNote = text;
      this.sink.note(`${text}\n`);
    }
  }

  private artifact(artifact: Artifact): void {
    this.artifactsSeen.add(artifact.artifactId);
    this.write(artifactText(artifact), true);
  }

  private write(text: string, paragraph: boolean): void {
    if (text === "") return;
    this.sink.text(paragraph && this.wrote ? `\n\n${text}` : text);
    this.wrote = true;
  }
}

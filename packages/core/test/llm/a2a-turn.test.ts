import type { Part, StreamResponse } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { A2ATurn, isSettled, stateName } from "../../src/llm/a2a/a2a-turn.js";

const part = (content: Part["content"], extra: Partial<Part> = {}): Part => ({
  content,
  metadata: undefined,
  filename: "",
  mediaType: "",
  ...extra,
});
const textPart = (value: string) => part({ $case: "text", value });
const ids = { taskId: "t1", contextId: "c1", metadata: undefined };
const artifact = (artifactId: string, parts: Part[], append = false, name = ""): StreamResponse => ({
  payload: {
    $case: "artifactUpdate",
    value: {
      ...ids,
      artifact: { artifactId, name, description: "", parts, metadata: undefined, extensions: [] },
      append,
      lastChunk: !append,
    },
  },
});
const status = (state: TaskState, words?: string): StreamResponse => ({
  payload: {
    $case: "statusUpdate",
    value: {
      ...ids,
      status: {
        state,
        timestamp: undefined,
        message:
          words === undefined
            ? undefined
            : {
                messageId: "m",
                contextId: "",
                taskId: "",
                role: 2,
                parts: [textPart(words)],
                metadata: undefined,
                extensions: [],
                referenceTaskIds: [],
              },
      },
    },
  },
});

function turnOf(responses: StreamResponse[]) {
  const text: string[] = [];
  const notes: string[] = [];
  const turn = new A2ATurn({ text: (d) => text.push(d), note: (d) => notes.push(d) });
  for (const r of responses) turn.take(r);
  return { turn, text: text.join(""), notes };
}

describe("an A2A task as a sub-run's content", () => {
  it("artifacts are the answer (chunks appended, new artifacts a paragraph, data as JSON), working statuses notes", () => {
    const { turn, text, notes } = turnOf([
      status(TaskState.TASK_STATE_WORKING, "Reading the sources."),
      status(TaskState.TASK_STATE_WORKING, "Reading the sources."),
      artifact("a1", [textPart("The answer ")]),
      artifact("a1", [textPart("is 42.")], true),
      artifact("a2", [part({ $case: "data", value: { files: ["out.txt"] } })], false, "changed-files"),
      artifact("a3", [
        part({ $case: "url", value: "https://x.test/r.pdf" }, { filename: "r.pdf", mediaType: "application/pdf" }),
      ]),
      status(TaskState.TASK_STATE_COMPLETED, "Done."),
    ]);
    expect(text).toBe(
      'The answer is 42.\n\nchanged-files:\n```json\n{"files":["out.txt"]}\n```\n\na3:\n[file r.pdf (application/pdf): https://x.test/r.pdf]',
    );
    // The same status said twice is one note; the settled status's words are kept, not noted.
    expect(notes).toEqual(["Reading the sources.\n"]);
    expect(turn).toMatchObject({ taskId: "t1", contextId: "c1", state: TaskState.TASK_STATE_COMPLETED, statusText: "Done." });
    expect(turn.answered).toBe(true);
  });

  it("a direct message is the whole reply; the states read as the spec names them", () => {
    const { turn, text } = turnOf([
      {
        payload: {
          $case: "message",
          value: {
            messageId: "m",
            contextId: "",
            taskId: "",
            role: 2,
            parts: [textPart("Hi.")],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          },
        },
      },
    ]);
    expect(text).toBe("Hi.");
    expect(turn.replied).toBe(true);
    expect(stateName(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe("input-required");
    expect(stateName(undefined)).toBe("unknown");
    expect(isSettled(TaskState.TASK_STATE_AUTH_REQUIRED)).toBe(true);
    expect(isSettled(TaskState.TASK_STATE_WORKING)).toBe(false);
  });
});

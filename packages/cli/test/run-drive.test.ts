import { EventEmitter } from "node:events";
import type { RunEvent } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { exitCodeForRun } from "../src/errors.js";
import { interruptHook } from "../src/interrupts.js";
import type { Io } from "../src/io.js";
import { createJsonView, type RunOutcome } from "../src/render/live.js";
import { driveRun, type RunHandleLike } from "../src/run/drive.js";
import { createAskHandler } from "../src/run/permissions.js";
import { captureIo } from "./helpers/io.js";

const ZERO = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

/** A run that emits `events`, then waits until aborted (when `hang`) before settling. */
function fakeHandle(events: RunEvent[], opts: { hang?: boolean } = {}): RunHandleLike & { abortedWith: unknown[] } {
  const abortedWith: unknown[] = [];
  let abort!: () => void;
  const aborted = new Promise<void>((resolve) => {
    abort = resolve;
  });
  const result: Promise<RunOutcome> = (async () => {
    if (opts.hang) {
      await aborted;
      return {
        sessionId: "s",
        status: "aborted",
        steps: 1,
        usage: ZERO,
        cost: 0,
        error: { code: "aborted", message: "aborted" },
      };
    }
    return { sessionId: "s", status: "done", steps: 1, usage: ZERO, cost: 0 };
  })();
  return {
    sessionId: "s",
    result,
    abortedWith,
    abort(reason) {
      abortedWith.push(reason);
      abort();
    },
    async *[Symbol.asyncIterator]() {
      yield* events;
      if (opts.hang) await aborted;
      yield { type: (await result).status === "done" ? "done" : "error", session_id: "s", content: "x" } as RunEvent;
    },
  };
}

function withInterrupts(io: Io) {
  const handlers = new Set<() => void>();
  const withHook: Io = {
    ...io,
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const interrupt = () => {
    for (const h of [...handlers]) h();
  };
  return { io: withHook, interrupt, handlers };
}

describe("driving a run", () => {
  it("plays every event into the view and returns the result", async () => {
    const io = captureIo();
    const handle = fakeHandle([{ type: "token", session_id: "s", content: "hi" }]);
    const driven = await driveRun({ io, handle, view: createJsonView(io) });
    expect(driven.outcome.status).toBe("done");
    expect(driven.interrupted).toBe(false);
    expect(
      io
        .out()
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["token"]);
    // The last line comes from the result, when the run is ended in the view.
  });

  it("turns Ctrl-C into an abort, waits for the result, and stops listening afterwards", async () => {
    const base = captureIo();
    const { io, interrupt, handlers } = withInterrupts(base);
    const handle = fakeHandle([{ type: "token", session_id: "s", content: "partial" }], { hang: true });
    const driving = driveRun({ io, handle, view: createJsonView(io) });
    await new Promise((r) => setTimeout(r, 10));
    expect(handlers.size).toBe(1);
    interrupt();
    interrupt();
    const driven = await driving;
    expect(handle.abortedWith).toHaveLength(1);
    expect(driven.interrupted).toBe(true);
    expect(exitCodeForRun(driven.outcome)).toBe(130);
    expect(base.err()).toMatch(/^interrupted: stopping the run/);
    expect(handlers.size).toBe(0);
  });
});

describe("exit codes of runs", () => {
  it("maps statuses and error codes in one place", () => {
    expect(exitCodeForRun({ status: "done" })).toBe(0);
    expect(exitCodeForRun({ status: "aborted" })).toBe(130);
    expect(exitCodeForRun({ status: "error", error: { code: "aborted" } })).toBe(130);
    for (const code of [
      "invalid_input",
      "invalid_model",
      "missing_api_key",
      "invalid_config",
      "session_not_found",
      "invalid_id",
    ]) {
      expect(exitCodeForRun({ status: "error", error: { code } }), code).toBe(2);
    }
    for (const code of ["provider_error", "internal_error", "io_error"]) {
      expect(exitCodeForRun({ status: "error", error: { code } }), code).toBe(1);
    }
    expect(exitCodeForRun({ status: "error" })).toBe(1);
  });
});

describe("answering permission asks", () => {
  const pending = { sessionId: "s1", agent: "build", tool: "read", request: { permission: "read", patterns: [".env"] } };
  const nobody = () => {};
  const signal = new AbortController().signal;

  it("allows once with --yes", async () => {
    const io = captureIo();
    const handler = createAskHandler({ yes: true, io, view: createJsonView(io), onNobody: nobody });
    expect(await handler(pending, signal)).toBe("once");
    expect(io.err()).toBe("");
  });

  it("--yes never widens the sandbox: that ask goes to the person, or to nobody", async () => {
    const io = captureIo();
    const stopped: unknown[] = [];
    const widen = { ...pending, request: { permission: "sandbox", patterns: ["write /etc"] } };
    const handler = createAskHandler({ yes: true, io, view: createJsonView(io), onNobody: (p) => stopped.push(p) });
    expect(await handler(widen, signal)).toBeUndefined();
    expect(stopped).toEqual([widen]);
  });

  it("answers nothing when nobody can answer, and hands the ask to onNobody (which stops the run)", async () => {
    const io = captureIo();
    const stopped: unknown[] = [];
    const handler = createAskHandler({ yes: false, io, view: createJsonView(io), onNobody: (p) => stopped.push(p) });
    expect(await handler(pending, signal)).toBeUndefined();
    expect(stopped).toEqual([pending]);
  });

  it("asks the person at the terminal until the answer is clear, and rejects at end of input", async () => {
    const answers = ["maybe", "A", "p"];
    const questions: string[] = [];
    const io: Io = {
      ...captureIo(),
      prompt: async (q) => {
        questions.push(q);
        return answers.shift();
      },
    };
    const handler = createAskHandler({ yes: false, io, view: createJsonView(io), onNobody: nobody });
    expect(await handler(pending, signal)).toBe("always");
    const question = "? allow read for .env? [o]nce / [a]lways / always in [p]roject / [g]lobally / [r]eject: ";
    expect(questions).toEqual([question, question]);
    expect(await handler(pending, signal)).toEqual({ reply: "always", scope: "project" });
    expect(await handler(pending, signal)).toBe("reject");
  });
});

describe("Ctrl-C on the process", () => {
  it("goes to the handler once, exits 130 on the second, and is released afterwards", () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const calls: string[] = [];
    const hook = interruptHook(source, (code) => exits.push(code));
    const release = hook(() => calls.push("handler"));
    source.emit("SIGINT");
    expect(calls).toEqual(["handler"]);
    expect(exits).toEqual([]);
    source.emit("SIGINT");
    expect(calls).toEqual(["handler"]);
    expect(exits).toEqual([130]);
    release();
    expect(source.listenerCount("SIGINT")).toBe(0);
  });
});

import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ArborError } from "../../src/errors.js";
import type { MiddlewareContext, RunMiddleware } from "../../src/loop/run-types.js";
import { type RunEvent, RunEventSchema } from "../../src/model/run-events.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness, toolTurnTypes, types } from "./harness.js";

/** Resolves when `release` is called: lets a test hold an async hook open and look at what happened meanwhile. */
function gate() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { opened, release };
}

describe("run middleware", () => {
  it("applies hooks in order: runtime middleware, then the run's; each sees what the previous returned", async () => {
    const calls: string[] = [];
    const tag = (name: string): RunMiddleware => ({
      name,
      onRunStart: (ctx) => {
        calls.push(`${name}.start ${ctx.sessionId === "" ? "?" : "session"}`);
      },
      onEvent: (event) => (event.type === "token" ? { ...event, content: `${event.content}+${name}` } : event),
      onRunEnd: (ctx) => {
        calls.push(`${name}.end ${ctx.result?.status}`);
      },
    });
    const { runtime } = await harness({ model: scriptedModel([[text("hi")]]), middleware: [tag("a")] });
    const { events, result } = await collect(runtime.runs.run({ prompt: "x", middleware: [tag("b")] }));
    expect(result.status).toBe("done");
    expect(events.find((e) => e.type === "token")).toMatchObject({ content: "hi+a+b" });
    expect(calls).toEqual(["a.start session", "b.start session", "a.end done", "b.end done"]);
  });

  it("null suppresses an event for the middleware after it and for the stream; undefined passes it on", async () => {
    const seenByLast: string[] = [];
    const { runtime } = await harness({ model: scriptedModel([[text("a b c", { chunks: 3 })]]) });
    const { events } = await collect(
      runtime.runs.run({
        prompt: "x",
        middleware: [
          { onEvent: (e) => (e.type === "token" ? null : undefined) },
          {
            onEvent: (e) => {
              seenByLast.push(e.type);
              return e;
            },
          },
        ],
      }),
    );
    expect(types(events)).toEqual(["llm_start", "llm_end", "done"]);
    expect(seenByLast).toEqual(["llm_start", "llm_end", "done"]);
  });

  it("keeps the stream in order when hooks are async, and the result waits for onRunEnd", async () => {
    const held = gate();
    const toolRan = gate();
    let ended = false;
    const slowFirstToken: RunMiddleware = {
      async onEvent(event) {
        if (event.type === "token" && event.content === "one ") await held.opened;
        return event;
      },
      async onRunEnd() {
        await Promise.resolve();
        ended = true;
      },
    };
    const probe = defineTool({
      name: "probe",
      description: "Says when the loop got this far.",
      input: z.object({}),
      execute: async () => {
        toolRan.release();
        return { output: "probed" };
      },
    });
    const { runtime } = await harness({
      model: scriptedModel([[text(["one ", "two ", "three"]), toolCall("probe", {}, { id: "p" })], [text("done")]]),
      tools: [probe],
    });
    const handle = runtime.runs.run({ prompt: "x", middleware: [slowFirstToken] });
    const events: RunEvent[] = [];
    const reading = (async () => {
      for await (const e of handle) events.push(e);
    })();
    // The loop goes on (its tool runs) while the hook holds the first token; nothing after it reaches the stream.
    await toolRan.opened;
    expect(types(events)).toEqual(["llm_start"]);
    held.release();
    await reading;
    const result = await handle.result;
    expect(ended).toBe(true);
    expect(result.status).toBe("done");
    expect(events.filter((e) => e.type === "token").map((e) => e.content)).toEqual(["one ", "two ", "three", "done"]);
    expect(types(events)).toEqual(toolTurnTypes(3, 1));
    for (const e of events) expect(RunEventSchema.parse(e)).toEqual(e);
  });

  it("reports a hook that throws and passes the event on; the run is not failed", async () => {
    const errors: ArborError[] = [];
    const broken: RunMiddleware = {
      name: "broken",
      onRunStart: () => {
        throw new Error("no start");
      },
      onEvent: (e) => {
        if (e.type === "llm_end") throw new Error("cannot");
        return e;
      },
      onRunEnd: async () => {
        throw new Error("no end");
      },
    };
    const { runtime } = await harness({
      model: scriptedModel([[text("ok")]]),
      middleware: [broken],
      onMiddlewareError: (err) => errors.push(err),
    });
    const { events, result } = await collect(runtime.runs.run({ prompt: "x" }));
    expect(result.status).toBe("done");
    expect(types(events)).toEqual(["llm_start", "token", "llm_end", "done"]);
    expect(errors.map((e) => e.code)).toEqual(["middleware_failed", "middleware_failed", "middleware_failed"]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^broken failed in onRunStart of run .*: no start$/),
      expect.stringMatching(/^broken failed in onEvent on a llm_end event of run .*: cannot$/),
      expect.stringMatching(/^broken failed in onRunEnd of run .*: no end$/),
    ]);
  });

  it("gives each run its own context, also when runs of one runtime overlap", async () => {
    const seen = new Map<string, { session: string; events: number }>();
    const counter: RunMiddleware = {
      onEvent(event, ctx: MiddlewareContext) {
        const entry = seen.get(ctx.runId) ?? { session: ctx.sessionId, events: 0 };
        entry.events++;
        seen.set(ctx.runId, entry);
        return event;
      },
    };
    const { runtime } = await harness({
      model: scriptedModel([[text("a")], [text("b")]]),
      middleware: [counter],
    });
    const [one, two] = await Promise.all([
      collect(runtime.runs.run({ prompt: "1" })),
      collect(runtime.runs.run({ prompt: "2" })),
    ]);
    expect(seen.size).toBe(2);
    expect(new Set([...seen.values()].map((v) => v.session))).toEqual(new Set([one.result.sessionId, two.result.sessionId]));
    expect([...seen.values()].map((v) => v.events)).toEqual([4, 4]);
  });

  it("sees the error event of a run that fails before it starts", async () => {
    const seen: string[] = [];
    const record: RunMiddleware = {
      onEvent: (e) => {
        seen.push(e.type);
        return e;
      },
    };
    const { runtime } = await harness({ model: scriptedModel([]), middleware: [record] });
    const { result } = await collect(runtime.runs.run({ prompt: "   " }));
    expect(result.status).toBe("error");
    expect(seen).toEqual(["error"]);
  });
});

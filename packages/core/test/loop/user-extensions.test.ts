import { type StepContext, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendCustom } from "../../src/loop/journal.js";
import type { RunContext, RunExtension } from "../../src/loop/run-context.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness } from "./harness.js";

const toolNames = (call: StepContext): string[] =>
  ((call as { options: { tools?: Array<{ name: string }> } }).options.tools ?? []).map((t) => t.name);

/** Offers `note`, denies `bash`, records each step through the journal and stops the run after two steps. */
function auditExtension(): { ext: RunExtension; started: RunContext[] } {
  const steps = new WeakMap<RunContext, number>();
  const started: RunContext[] = [];
  const ext: RunExtension = {
    name: "audit",
    tools: [
      defineTool({
        name: "note",
        description: "Keeps a note.",
        input: z.object({ text: z.string() }),
        execute: async ({ text }) => ({ output: `noted: ${text}` }),
      }),
    ],
    rules: [{ permission: "bash", pattern: "*", action: "deny" }],
    start(run) {
      started.push(run);
      steps.set(run, 0);
    },
    async afterStep(run) {
      steps.set(run, (steps.get(run) ?? 0) + 1);
      await appendCustom(run, "audit.step", { step: run.tally.steps, seen: steps.get(run) });
    },
    // Asked once a step's tools ran, before that step's afterStep.
    stop: (run) => (run.tally.steps >= 2 ? "budget" : undefined),
  };
  return { ext, started };
}

describe("a runtime user's own extension", () => {
  it("offers a tool, adds a rule, acts after each step and stops the run", async () => {
    const calls: StepContext[] = [];
    const step = (n: number) => (call: StepContext) => {
      calls.push(call);
      return [toolCall("note", { text: `n${n}` }, { id: `c${n}` })];
    };
    const { ext, started } = auditExtension();
    const { runtime, store } = await harness({
      model: scriptedModel([step(1), step(2), step(3), [text("never reached")]]),
      extensions: [ext],
    });
    const { result } = await collect(runtime.runs.run({ prompt: "take notes" }));

    expect(result).toMatchObject({ status: "done", stopReason: "budget", steps: 2 });
    expect(started).toHaveLength(1);
    // The extension's tool is offered and runs; the tool its rule denies is not offered.
    expect(toolNames(calls[0]!)).toContain("note");
    expect(toolNames(calls[0]!)).toContain("read");
    expect(toolNames(calls[0]!)).not.toContain("bash");
    const path = await store.getActivePath(result.sessionId);
    const results = path.flatMap((e) =>
      e.type === "message" && e.message.role === "tool" ? e.message.content.map((p) => p.output) : [],
    );
    expect(results).toEqual([
      { type: "text", value: "noted: n1" },
      { type: "text", value: "noted: n2" },
    ]);
    // What it wrote after each step went through the run's journal, in order with the messages.
    const audit = path.filter((e) => e.type === "custom" && e.customType === "audit.step");
    expect(audit.map((e) => (e.type === "custom" ? e.data : undefined))).toEqual([
      { step: 1, seen: 1 },
      { step: 2, seen: 2 },
    ]);
    expect(path.at(-1)).toBe(audit.at(-1));
  });

  it("is refused at createRuntime when it has no name, reuses a name or offers a tool name already taken", async () => {
    const { ext } = auditExtension();
    const bad: Array<[RunExtension[], RegExp]> = [
      [[{ ...ext, name: " " }], /Extension 1 is not a RunExtension: name needs a name/],
      [[ext, { name: "audit" }], /"audit" is already part of every run/],
      [[{ name: "plan" }], /"plan" is already part of every run/],
      [[{ ...ext, tools: [{ ...ext.tools![0]!, name: "read" }] }], /offers a tool "read", and the runtime already has one/],
      [[{ name: "x", stop: "soon" } as unknown as RunExtension], /Extension 1 is not a RunExtension: stop/],
    ];
    for (const [extensions, message] of bad) {
      await expect(harness({ extensions })).rejects.toMatchObject({
        code: "invalid_input",
        message: expect.stringMatching(message),
      });
    }
  });
});

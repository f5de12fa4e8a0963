import { type StepContext, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { RunExtension } from "../../src/loop/run-context.js";
import { collect, harness } from "./harness.js";

const systemOf = (call: StepContext): string => {
  const prompt = (call as { options: { prompt: Array<{ role: string; content: unknown }> } }).options.prompt;
  return prompt
    .filter((m) => m.role === "system")
    .map((m) => String(m.content))
    .join("\n");
};

describe("the transformSystem hook", () => {
  it("rewrites each model call's whole system prompt, extensions in order, after the text they add", async () => {
    const calls: StepContext[] = [];
    const appends: RunExtension = { name: "appends", system: () => "APPENDED" };
    const upper: RunExtension = {
      name: "upper",
      transformSystem: (_run, system) => `<<${system.replace("APPENDED", "appended")}>>`,
    };
    const tag: RunExtension = { name: "tag", transformSystem: (_run, system) => `${system}\n[tag]` };
    const { runtime } = await harness({
      model: scriptedModel([
        (call) => {
          calls.push(call);
          return [text("ok")];
        },
      ]),
      extensions: [appends, upper, tag],
    });
    const { result } = await collect(runtime.runs.run({ prompt: "hi" }));
    expect(result.status).toBe("done");
    const system = systemOf(calls[0]!);
    expect(system.startsWith("<<")).toBe(true);
    expect(system.endsWith("appended>>\n[tag]")).toBe(true);
  });
});

// The loop section's reference: the same tool loop driven by the AI SDK's own multi-step `generateText`
// (no session, nothing persisted), in a process of its own, as loop-runs.mjs drives Arbor's runtime.
// Same scripted model (@arbor/testkit, a LanguageModelV4), same payloads, same tool (its input checked
// with the same zod schema, the same 2,000-character result). Prints one JSON line as loop-runs.mjs does.
//   node bench/loop/ai-sdk-runs.mjs <warmups> <repeats> <steps>
import { scriptedModel } from "@arbor/testkit";
import { generateText, stepCountIs, tool } from "ai";
import { medianGapUs, runClock } from "../lib/stats.mjs";
import { NOOP_TOOL, toolLoopScript, USER_PROMPT } from "./harness.mjs";

const [warmups, repeats, steps] = process.argv.slice(2).map(Number);
if (!(warmups >= 0 && repeats > 0 && steps > 1)) throw new Error("usage: ai-sdk-runs.mjs <warmups> <repeats> <steps>");
const tools = {
  [NOOP_TOOL.name]: tool({
    description: NOOP_TOOL.description,
    inputSchema: NOOP_TOOL.input,
    execute: async () => NOOP_TOOL.result,
  }),
};

const runs = [];
let firstMs = 0;
for (let i = 0; i < warmups + repeats; i++) {
  const model = scriptedModel(toolLoopScript(steps), { record: false });
  const starts = [];
  const clock = runClock();
  const t0 = performance.now();
  const out = await generateText({
    model,
    tools,
    prompt: USER_PROMPT,
    stopWhen: stepCountIs(steps + 10),
    // Where Arbor's figure takes each llm_start, this takes each step's end: the gaps are the same steps.
    onStepFinish: () => {
      starts.push(performance.now() - t0);
    },
  });
  const { ms, cpuMs, mainCpuMs } = clock();
  if (out.steps.length !== steps) throw new Error(`expected ${steps} steps, generateText made ${out.steps.length}`);
  if (i === 0) firstMs = ms;
  if (i < warmups) continue;
  runs.push({ ms, cpuMs, mainCpuMs, setupMs: null, stepUs: medianGapUs(starts) });
}
process.stdout.write(`${JSON.stringify({ firstMs, runs })}\n`);

// Section "compaction" (issue 4): a long scripted session with large tool outputs under a 32k-token model.
// The scripted provider counts every prompt with the o200k tokenizer, reports that as its usage, and refuses
// any prompt over its window, as a real one would; the run must finish without a refusal. Then the session's
// path is replayed through the same pure decision code the loop runs, to time each decision.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { error, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { z } from "zod";
import { note, num, ratio, section, table } from "../lib/format.mjs";
import { now, summarize, us } from "../lib/stats.mjs";

const CONTEXT = 32_000;
const OUTPUT = 4_096;
/** Characters of each tool output: about 2,700 tokens of varied text, so ten of them fill the window. */
const PAGE_CHARS = 8_000;
const TARGET_DECISION_MS = 5;

export async function run({ core, tmp, quick }) {
  const steps = quick ? 150 : 500;
  const counter = new core.TokenCounter();
  await counter.load();
  const session = await longSession(core, tmp, counter, steps);
  report(core, session, steps);
  await decisions(core, session, steps);
}

function page(n) {
  const words = [];
  for (let i = 0; words.length * 5 < PAGE_CHARS; i++) words.push(`w${(i * 7919 + n * 31) % 1000}`);
  return `page ${n}\n${words.join(" ")}`.slice(0, PAGE_CHARS);
}

/** A provider that counts its prompts (memoized per message object: the runtime grows one prompt in place). */
function countingProvider(counter) {
  const memo = new WeakMap();
  let toolsJson;
  let toolsTokens = 0;
  return (options) => {
    let n = 3;
    for (const m of options.prompt) {
      let c = memo.get(m);
      if (c === undefined) {
        c = 4 + counter.text(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
        memo.set(m, c);
      }
      n += c;
    }
    const json = JSON.stringify(options.tools ?? "");
    if (json !== toolsJson) {
      toolsJson = json;
      toolsTokens = counter.text(json);
    }
    return n + toolsTokens;
  };
}

async function longSession(core, tmp, counter, steps) {
  const count = countingProvider(counter);
  const stats = { refused: 0, summaries: 0, mainCalls: 0, peakPrompt: 0, summaryInput: 0 };
  const step = (call) => {
    const prompt = count(call.options);
    stats.peakPrompt = Math.max(stats.peakPrompt, prompt);
    if (prompt > CONTEXT - OUTPUT) {
      stats.refused++;
      return [error(400, { message: `maximum context length is ${CONTEXT} tokens; your messages resulted in ${prompt} tokens` })];
    }
    if (call.options.prompt[0]?.content === core.SUMMARY_SYSTEM_PROMPT) {
      stats.summaries++;
      stats.summaryInput += prompt;
      return [
        text(
          `## Goal\nRead pages 1 to ${steps}.\n## Progress\n### Done\nSummary ${stats.summaries}.\n## Next steps\nRead the next page.`,
        ),
        usage({ inputTokens: prompt, outputTokens: 60 }),
      ];
    }
    stats.mainCalls++;
    if (stats.mainCalls > steps) return [text("All pages read."), usage({ inputTokens: prompt, outputTokens: 5 })];
    return [toolCall("page", { n: stats.mainCalls }), usage({ inputTokens: prompt, outputTokens: 20 })];
  };
  const model = scriptedModel(
    Array.from({ length: steps * 3 }, () => step),
    { record: false, provider: "bench", modelId: "window-32k" },
  );
  const pageTool = core.defineTool({
    name: "page",
    description: "Prints one page of a long document.",
    input: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ output: page(n) }),
  });
  const store = await core.openStore({ kind: "sqlite", file: join(tmp, "compaction.db"), durability: "process" });
  const cwd = join(tmp, "compaction-ws");
  mkdirSync(cwd, { recursive: true });
  const blobs = new core.MemoryBlobStore();
  const runtime = core.createRuntime({
    store,
    model,
    config: core.resolveConfig([
      { source: "bench", value: { models: { "bench/window-32k": { limit: { context: CONTEXT, output: OUTPUT } } } } },
    ]),
    tools: new core.ToolRegistry({ blobs }).register(pageTool),
    cwd,
    arborHome: join(tmp, "compaction-home"),
    env: {},
    blobs,
  });
  const t0 = performance.now();
  const handle = runtime.runs.run({
    prompt: `Read pages 1 to ${steps} with the page tool, one call each.`,
    maxTurns: steps + 10,
  });
  for await (const _ of handle);
  const result = await handle.result;
  const ms = performance.now() - t0;
  const path = await store.getActivePath(handle.sessionId);
  await runtime.close();
  await store.close();
  if (result.status !== "done") throw new Error(`the run ended ${result.status}: ${result.error?.message}`);
  return { result, ms, path, stats, counter };
}

/**
 * What the session would have sent with no context management: every step's prompt holds everything
 * before it (local counts over the stored messages, the first prompt as the provider reported it).
 */
function baselineInput(path, counter, firstPrompt) {
  let total = 0;
  let prefix = firstPrompt;
  let seenFirst = false;
  let overflowStep;
  let step = 0;
  for (const e of path) {
    if (e.type !== "message") continue;
    const m = e.message;
    if (m.role === "assistant") {
      step++;
      total += prefix;
      if (overflowStep === undefined && prefix > CONTEXT - OUTPUT) overflowStep = step;
    }
    // The first user message is in firstPrompt already.
    if (m.role === "user" && !seenFirst) seenFirst = true;
    else prefix += counter.message(m);
  }
  return { total, final: prefix, overflowStep };
}

function report(core, { result, ms, path, stats, counter }, steps) {
  section(`X1. A ${steps}-step session with large tool outputs under a ${CONTEXT.toLocaleString("en-US")}-token model`);
  note(
    `Each step reads a ${PAGE_CHARS.toLocaleString("en-US")}-character page (~${num(counter.text(page(1)))} tokens); the scripted provider counts`,
  );
  note(`every prompt with the o200k tokenizer, reports it as usage and refuses one over ${num(CONTEXT - OUTPUT)} tokens.`);
  const compactions = path.filter((e) => e.type === "compaction").length;
  const prunes = path.filter((e) => e.type === "custom" && e.customType === core.PRUNE_ENTRY_TYPE).length;
  const firstPrompt = path.find((e) => e.type === "message" && e.message.role === "assistant")?.message.tokens?.input ?? 0;
  const baseline = baselineInput(path, counter, firstPrompt);
  const sent = result.usage.input;
  table(
    [
      "<run",
      "steps",
      "wall s",
      "compactions",
      "summary calls",
      "prunes",
      "refused",
      "peak prompt",
      "input sent",
      "no-compaction",
      "sent/baseline",
    ],
    [
      [
        result.status,
        result.steps,
        num(ms / 1000),
        compactions,
        stats.summaries,
        prunes,
        stats.refused,
        num(stats.peakPrompt),
        num(sent),
        num(baseline.total),
        ratio(sent / baseline.total),
      ],
    ],
  );
  note(`input sent counts every call, the ${stats.summaries} summary calls included (${num(stats.summaryInput)} tokens of it).`);
  note(`no-compaction baseline: the same steps with every prompt holding all history (local counts); it could`);
  note(
    `not run: its prompt passes the window at step ${baseline.overflowStep ?? "never"} and would hold ${num(baseline.final)} tokens by the end.`,
  );
  estimateError(core, path, counter);
}

/** The local count of each prompt (no provider anchor) against what the provider reported for it. */
function estimateError(core, path, counter) {
  let state = core.EMPTY_CONTEXT;
  const errors = [];
  let overhead;
  for (const e of path) {
    if (
      e.type === "message" &&
      e.message.role === "assistant" &&
      e.message.tokens?.input > 0 &&
      e.message.agent !== "compaction"
    ) {
      let local = 0;
      for (let i = 0; i < state.length; i++) local += counter.message(state.items[i].message);
      // The system prompt and tool definitions are fixed: take them from the first step's report.
      overhead ??= e.message.tokens.input - local;
      errors.push((local + overhead - e.message.tokens.input) / e.message.tokens.input);
    }
    state = core.applyEntry(state, e);
  }
  const abs = errors.map(Math.abs);
  const s = summarize(abs.map((x) => x * 100));
  note(
    `local estimate vs provider-reported prompt tokens over ${errors.length} prompts (fixed overhead calibrated on step 1):` +
      ` mean |error| ${num((abs.reduce((a, b) => a + b, 0) / abs.length) * 100)}%, p99 ${num(s.p99)}%, max ${num(s.max)}%.`,
  );
}

/**
 * Replays the session's path through the loop's decision code: before every step the incremental measure
 * (provider usage + local counts since), and where the loop compacted or pruned, prune selection and the cut.
 * A cold token counter, so tokenizing each new tool output is part of the time.
 */
function decisions(core, { path }, steps) {
  section(`X2. Time spent deciding what to compact, replayed over the ${steps}-step session (target ≤ ${TARGET_DECISION_MS} ms)`);
  const counter = new core.TokenCounter();
  return counter.load().then(() => {
    const usable = core.usableTokens({ context: CONTEXT, output: OUTPUT });
    const size = new core.ContextSize();
    const overhead = 0;
    const perStep = [];
    const perCompaction = [];
    let state = core.EMPTY_CONTEXT;
    let stepIndex = 0;
    const lateSteps = [];
    for (const e of path) {
      if (e.type === "message" && e.message.role === "assistant" && e.message.agent !== "compaction") {
        const t0 = now();
        size.measure(state, counter, overhead);
        const t1 = now();
        perStep.push(us(t0, t1));
        stepIndex++;
        if (stepIndex > steps * 0.8) lateSteps.push(us(t0, t1));
      }
      if (e.type === "compaction" || (e.type === "custom" && e.customType === core.PRUNE_ENTRY_TYPE)) {
        const t0 = now();
        size.measure(state, counter, overhead);
        core.selectPrune(state, counter.message);
        // The guard also counts the whole context locally, to scale the tail budget to the provider's count.
        let local = 0;
        for (let i = 0; i < state.length; i++) local += counter.message(state.items[i].message);
        const ratioToProvider = Math.max(1, size.measure(state, counter, overhead) / Math.max(1, local));
        core.selectCut(state, counter.message, Math.floor(core.keepRecentBudget(usable) / ratioToProvider));
        const t1 = now();
        perCompaction.push({ ms: us(t0, t1) / 1000, step: stepIndex, items: state.length });
      }
      state = core.applyEntry(state, e);
    }
    const step = summarize(perStep);
    const late = summarize(lateSteps);
    const comp = summarize(perCompaction.map((c) => c.ms));
    const lastComp = perCompaction.at(-1);
    table(
      ["<decision", "n", "p50", "p99", "max", "<unit", "target", "vs target"],
      [
        ["check before each step (all steps)", step.n, num(step.p50), num(step.p99), num(step.max), "µs", "", ""],
        [`check, last 20% of steps`, late.n, num(late.p50), num(late.p99), num(late.max), "µs", "", ""],
        [
          "prune selection + cut, per compaction",
          comp.n,
          num(comp.p50),
          num(comp.p99),
          num(comp.max),
          "ms",
          `≤ ${TARGET_DECISION_MS}`,
          ratio(comp.max / TARGET_DECISION_MS),
        ],
      ],
    );
    if (lastComp)
      note(
        `the last compaction (step ${lastComp.step}, ${lastComp.items} items in context) took ${num(lastComp.ms)} ms to decide.`,
      );
    note("the check tokenizes each new tool output once (a cold counter here, as in the loop); the model calls are not counted.");
  });
}

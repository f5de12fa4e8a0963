// Section "goals": what goal compaction saves on a long scripted task. 32 goals, each three calls of a
// tool that returns a 2,000-character page, then the goal is closed with a summary; facts are planted in
// the pages of the first goals and the final answer needs them. The run goes through the real runtime
// (goal tool, goal extension, context); the scripted provider counts every prompt with the o200k
// tokenizer. Linear history (no goal compaction) is the same path with the goal-compaction entries left
// out, counted the same way, step by step.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { z } from "zod";
import { note, num, section, table } from "../lib/format.mjs";

const GOALS = 32;
const CALLS_PER_GOAL = 3;
const PAGE_CHARS = 2000;
/** Goals whose first page holds a fact the final answer needs. */
const PLANTED = [1, 2, 3, 5, 8];
const TARGET_SAVING = 0.4;

const fact = (g) => `release code of module ${g} is QX-${g * 7919}`;

function page(goal, part) {
  const words = [];
  for (let i = 0; words.join(" ").length < PAGE_CHARS; i++) words.push(`w${(i * 7919 + goal * 31 + part * 17) % 1000}`);
  const body = words.join(" ");
  const head = part === 1 && PLANTED.includes(goal) ? `NOTE: the ${fact(goal)}. ` : "";
  return `${head}goal ${goal} part ${part}: ${body}`.slice(0, PAGE_CHARS);
}

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

/** The model's moves, in order: plan, then per goal its reads and its close, then the answer. */
function moves() {
  // Numbers in a call refer to the plan as it was before the call, so the first goal is focused next.
  const out = [
    { goal: { add: Array.from({ length: GOALS }, (_, i) => `Check module ${i + 1}`).join(", ") } },
    { goal: { focus: "1" } },
  ];
  for (let g = 1; g <= GOALS; g++) {
    for (let p = 1; p <= CALLS_PER_GOAL; p++) out.push({ read: { goal: g, part: p } });
    const found = PLANTED.includes(g) ? ` Found: the ${fact(g)}.` : "";
    const done = `Module ${g} checked, pages 1-${CALLS_PER_GOAL} read.${found}`;
    out.push({ goal: g < GOALS ? { done, focus: String(g + 1) } : { done } });
  }
  out.push({ answer: `All ${GOALS} modules checked. ${PLANTED.map((g) => `The ${fact(g)}.`).join(" ")}` });
  return out;
}

async function runTask(core, tmp, counter) {
  const count = countingProvider(counter);
  const stats = { calls: 0, peak: 0, lastPrompt: undefined };
  const plan = moves();
  const step = (call) => {
    const prompt = count(call.options);
    stats.peak = Math.max(stats.peak, prompt);
    stats.lastPrompt = call.options.prompt;
    const move = plan[stats.calls++];
    const u = usage({ inputTokens: prompt, outputTokens: 40 });
    const say = text(`Step ${stats.calls}: working through the plan one module at a time, as agreed.`);
    if (move.goal) return [say, toolCall("goal", move.goal), u];
    if (move.read) return [say, toolCall("read_page", move.read), u];
    return [text(move.answer), u];
  };
  const model = scriptedModel(
    plan.map(() => step),
    { record: false, provider: "bench", modelId: "window-1m" },
  );
  const readPage = core.defineTool({
    name: "read_page",
    description: "Returns one page of a module's notes.",
    input: z.object({ goal: z.number(), part: z.number() }),
    execute: async ({ goal, part }) => ({ output: page(goal, part) }),
  });
  const blobs = new core.MemoryBlobStore();
  const store = await core.openStore({ kind: "sqlite", file: join(tmp, "goals.db"), durability: "process" });
  const cwd = join(tmp, "goals-ws");
  mkdirSync(cwd, { recursive: true });
  const runtime = core.createRuntime({
    store,
    model,
    config: core.resolveConfig([
      { source: "bench", value: { models: { "bench/window-1m": { limit: { context: 1_000_000, output: 8_192 } } } } },
    ]),
    tools: new core.ToolRegistry({ blobs }).register(readPage).register(core.defineGoalTool()),
    cwd,
    arborHome: join(tmp, "goals-home"),
    env: {},
    blobs,
  });
  const handle = runtime.runs.run({
    prompt: `Check modules 1 to ${GOALS} and report every release code you find.`,
    maxTurns: plan.length + 5,
  });
  for await (const _ of handle);
  const result = await handle.result;
  const path = await store.getActivePath(handle.sessionId);
  await runtime.close();
  await store.close();
  if (result.status !== "done") throw new Error(`the run ended ${result.status}: ${result.error?.message}`);
  if (stats.calls !== plan.length) throw new Error(`expected ${plan.length} model calls, saw ${stats.calls}`);
  return { result, path, stats };
}

/**
 * Per step, the prompt the model saw (as the provider counted it) and the prompt linear history would have
 * sent: the same minus the messages of the goal-compacted context plus those of the linear one.
 */
function linearReplay(core, path, counter) {
  const memo = new WeakMap();
  const tokens = (state) => {
    let n = 0;
    for (let i = 0; i < state.length; i++) {
      const m = state.items[i].message;
      let c = memo.get(m);
      if (c === undefined) {
        c = counter.message(m);
        memo.set(m, c);
      }
      n += c;
    }
    return n;
  };
  let compacted = core.EMPTY_CONTEXT;
  let linear = core.EMPTY_CONTEXT;
  let linearTotal = 0;
  let linearPeak = 0;
  let compactions = 0;
  let linearLast;
  for (const e of path) {
    if (e.type === "message" && e.message.role === "assistant" && e.message.tokens) {
      const prompt = e.message.tokens.input - tokens(compacted) + tokens(linear);
      linearTotal += prompt;
      linearPeak = Math.max(linearPeak, prompt);
      linearLast = linear;
    }
    compacted = core.applyEntry(compacted, e);
    const isGoalCompaction = e.type === "custom" && e.customType === core.GOAL_COMPACTION_ENTRY_TYPE;
    if (isGoalCompaction) compactions++;
    else linear = core.applyEntry(linear, e);
  }
  return { linearTotal, linearPeak, compactions, linearLast };
}

export async function run({ core, tmp }) {
  section(
    `G1. Goal compaction on a long task: ${GOALS} goals × ${CALLS_PER_GOAL} tool calls, facts planted in ${PLANTED.length} early goals`,
  );
  note(
    `Each call returns a ${PAGE_CHARS.toLocaleString("en-US")}-character page; each goal is closed with goal(done=…) whose summary`,
  );
  note("keeps what it found; the final answer must name every planted fact. o200k counts of every prompt.");
  const counter = new core.TokenCounter();
  await counter.load();
  const { result, path, stats } = await runTask(core, tmp, counter);
  const linear = linearReplay(core, path, counter);
  const sent = result.usage.input;
  const finalText = JSON.stringify(stats.lastPrompt);
  const survived = PLANTED.filter((g) => finalText.includes(fact(g))).length;
  const linearText = JSON.stringify(core.contextMessages(linear.linearLast));
  const linearSurvived = PLANTED.filter((g) => linearText.includes(fact(g))).length;
  table(
    ["<history", "model calls", "goal compactions", "input tokens", "peak prompt", "facts in final prompt", "saving", "target"],
    [
      [
        "goal compaction",
        result.steps,
        linear.compactions,
        num(sent),
        num(stats.peak),
        `${survived}/${PLANTED.length}`,
        `${((1 - sent / linear.linearTotal) * 100).toFixed(1)}%`,
        `≥ ${TARGET_SAVING * 100}%`,
      ],
      [
        "linear (same path)",
        result.steps,
        0,
        num(linear.linearTotal),
        num(linear.linearPeak),
        `${linearSurvived}/${PLANTED.length}`,
        "",
        "",
      ],
    ],
  );
  note("saving = 1 − goal-compaction input ÷ linear input. Linear is not run separately: it is the same path with the");
  note("goal-compaction entries left out of the context, each prompt = the provider's count − the compacted messages");
  note("+ the linear ones (the system prompt and tool definitions are the same in both).");
  if (survived < PLANTED.length) note(`LOST: ${PLANTED.length - survived} planted fact(s) are not in the final prompt.`);
}

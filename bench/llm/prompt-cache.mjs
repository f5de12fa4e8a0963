// Section "prompt-cache": what a provider's prompt cache could serve on a 50-step tool loop, from the requests
// Arbor actually sends: Anthropic caches up to the breakpoints a request marks, OpenAI caches a repeated prefix.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer";
import { z } from "zod";
import { note, num, section, table } from "../lib/format.mjs";

const STEPS = 50;
const USER = "Please go through the project and fix the failing tests; explain each change as you make it. "
  .repeat(3)
  .slice(0, 200);
/** 450 chars that differ from step to step (identical answers would trip the doom-loop guard). */
const stepText = (step) =>
  `Step ${step}: ${"I am reading the next file to see how the parser handles this case before I change anything. ".repeat(5)}`.slice(
    0,
    450,
  );
const RESULT = "x".repeat(60).concat("\n").repeat(33).slice(0, 2_000);
// Dollars per million tokens (claude-sonnet-4-5 and gpt-5 list prices).
const PRICES = {
  anthropic: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  openai: { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, output: 10 },
};

const sse = (events) =>
  new Response(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });

/** One Anthropic Messages stream: the step's text, then a tool call (or only text on the last step). */
function anthropicStream(step, last) {
  const usage = { input_tokens: 1, output_tokens: 150 };
  const events = [
    {
      type: "message_start",
      message: { id: `msg_${step}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], usage },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: stepText(step) } },
    { type: "content_block_stop", index: 0 },
  ];
  if (!last) {
    const args = JSON.stringify({ path: `src/module-${step}/parser.ts`, pattern: "handleEscapes", context: 3, limit: 200 });
    events.push(
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: `toolu_${step}`, name: "lookup", input: {} },
      },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: args } },
      { type: "content_block_stop", index: 1 },
    );
  }
  events.push(
    { type: "message_delta", delta: { stop_reason: last ? "end_turn" : "tool_use" }, usage: { output_tokens: 150 } },
    { type: "message_stop" },
  );
  return sse(events);
}

/** One OpenAI Responses stream with the same content. */
function openaiStream(step, last) {
  const id = `resp_${step}`;
  const usage = {
    input_tokens: 1,
    output_tokens: 150,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  const message = {
    id: `msg_${step}`,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: stepText(step), annotations: [] }],
  };
  const events = [
    { type: "response.created", response: { id, created_at: 0, model: "gpt-5", status: "in_progress" } },
    { type: "response.output_item.added", output_index: 0, item: { ...message, status: "in_progress", content: [] } },
    { type: "response.output_text.delta", item_id: message.id, output_index: 0, content_index: 0, delta: stepText(step) },
    { type: "response.output_item.done", output_index: 0, item: message },
  ];
  if (!last) {
    const args = JSON.stringify({ path: `src/module-${step}/parser.ts`, pattern: "handleEscapes", context: 3, limit: 200 });
    const call = {
      id: `fc_${step}`,
      type: "function_call",
      status: "completed",
      call_id: `call_${step}`,
      name: "lookup",
      arguments: args,
    };
    events.push({ type: "response.output_item.added", output_index: 1, item: { ...call, arguments: "" } });
    events.push({ type: "response.output_item.done", output_index: 1, item: call });
  }
  events.push({ type: "response.completed", response: { id, created_at: 0, model: "gpt-5", status: "completed", usage } });
  return sse(events);
}

const hash = (text) => createHash("sha256").update(text).digest("hex");

/** A request as cacheable blocks in the order a provider caches them: tools, system, then each message part. */
function anthropicBlocks(body) {
  const strip = ({ cache_control, ...rest }) => rest;
  const blocks = [];
  for (const tool of body.tools ?? []) blocks.push({ text: JSON.stringify(strip(tool)), mark: !!tool.cache_control });
  for (const part of body.system ?? []) blocks.push({ text: JSON.stringify(strip(part)), mark: !!part.cache_control });
  for (const message of body.messages) {
    for (const part of message.content)
      blocks.push({ text: `${message.role}:${JSON.stringify(strip(part))}`, mark: !!part.cache_control });
  }
  return blocks;
}

function openaiBlocks(body) {
  const blocks = [];
  for (const tool of body.tools ?? []) blocks.push({ text: JSON.stringify(tool) });
  if (body.instructions) blocks.push({ text: body.instructions });
  for (const item of body.input) blocks.push({ text: JSON.stringify(item) });
  return blocks;
}

/**
 * Tokens a request could read from the cache. Anthropic: the longest prefix ending where an earlier
 * request placed a breakpoint; it writes a cache entry at each of this request's breakpoints. OpenAI: the
 * longest prefix shared with an earlier request, in 128-token steps from 1,024 tokens.
 */
function cacheFigures(kind, requests) {
  const written = new Set();
  const steps = [];
  let previous = [];
  for (const body of requests) {
    const blocks = kind === "anthropic" ? anthropicBlocks(body) : openaiBlocks(body);
    const tokens = blocks.map((b) => countTokens(b.text));
    const total = tokens.reduce((a, b) => a + b, 0);
    let prefix = "";
    let sum = 0;
    let cached = 0;
    let lastMark = 0;
    const hashes = [];
    for (let i = 0; i < blocks.length; i++) {
      prefix = hash(prefix + blocks[i].text);
      sum += tokens[i];
      hashes.push(prefix);
      if (kind === "anthropic") {
        if (written.has(prefix)) cached = sum;
        if (blocks[i].mark) lastMark = sum;
      } else if (previous[i] === prefix) {
        cached = sum;
      }
    }
    if (kind === "openai") cached = cached < 1_024 ? 0 : Math.floor(cached / 128) * 128;
    if (kind === "anthropic") {
      for (let i = 0; i < blocks.length; i++) if (blocks[i].mark) written.add(hashes[i]);
    }
    const write = kind === "anthropic" ? Math.max(0, lastMark - cached) : 0;
    steps.push({ total, cached, write });
    previous = hashes;
  }
  return steps;
}

function cost(prices, step, withCache) {
  const output = 150;
  if (!withCache) return (step.total * prices.input + output * prices.output) / 1e6;
  const plain = step.total - step.cached - step.write;
  return (plain * prices.input + step.cached * prices.cacheRead + step.write * prices.cacheWrite + output * prices.output) / 1e6;
}

async function runLoop(core, tmp, kind) {
  const requests = [];
  let step = 0;
  const fetch = async (_url, init) => {
    requests.push(JSON.parse(init.body));
    step++;
    return kind === "anthropic" ? anthropicStream(step, step === STEPS) : openaiStream(step, step === STEPS);
  };
  const lookup = core.defineTool({
    name: "lookup",
    description: "Looks up a pattern in a file.",
    input: z.object({ path: z.string(), pattern: z.string(), context: z.number(), limit: z.number() }),
    execute: async () => ({ output: RESULT }),
  });
  const config = core.resolveConfig([]);
  const env = { ANTHROPIC_API_KEY: "bench", OPENAI_API_KEY: "bench" };
  const cwd = join(tmp, `prompt-cache-${kind}`);
  mkdirSync(cwd, { recursive: true });
  const store = await core.openStore({ kind: "file", dir: join(cwd, "store") });
  const runtime = core.createRuntime({
    store,
    config,
    env,
    cwd,
    arborHome: cwd,
    tools: [lookup],
    models: core.createModelRegistry({ config, env, fetch }),
    model: kind === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-5",
    clock: { now: () => Date.parse("2026-03-01T10:00:00.000Z"), sleep: async () => {} },
  });
  const handle = runtime.runs.run({ prompt: USER, maxTurns: STEPS + 5 });
  for await (const _ of handle);
  const result = await handle.result;
  await runtime.close();
  await store.close();
  if (result.status !== "done" || requests.length !== STEPS)
    throw new Error(`run ended ${result.status} after ${requests.length} requests`);
  return requests;
}

export async function run({ core, tmp }) {
  section(`P1. Prompt cache on a ${STEPS}-step tool loop: the share of input tokens a provider can serve from its cache`);
  note("Each step: 450 chars of text and one tool call (~150 chars of JSON), a 2,000-char tool result; user message 200 chars.");
  note("Tokens counted with o200k on the requests Arbor sent (an estimate for Anthropic). Cost per step at list prices:");
  note("Anthropic reads at 10% and writes at 125% of the input price; OpenAI reads at 10% and needs a 1,024-token prefix.");
  const rows = [];
  for (const kind of ["anthropic", "openai"]) {
    const steps = cacheFigures(kind, await runLoop(core, tmp, kind));
    const total = steps.reduce((a, s) => a + s.total, 0);
    const cached = steps.reduce((a, s) => a + s.cached, 0);
    const prices = PRICES[kind];
    const without = steps.reduce((a, s) => a + cost(prices, s, false), 0) / steps.length;
    const withCache = steps.reduce((a, s) => a + cost(prices, s, true), 0) / steps.length;
    rows.push([
      kind,
      num(total),
      num(cached),
      `${((100 * cached) / total).toFixed(1)}%`,
      `$${without.toFixed(5)}`,
      `$${withCache.toFixed(5)}`,
      `${(without / withCache).toFixed(2)}×`,
    ]);
  }
  table(["<provider", "input tokens", "from cache", "share", "$/step without", "$/step with", "saving"], rows);
}

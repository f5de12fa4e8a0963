// The loop section's second reference: the same tool loop driven by pi's `Agent` (@mariozechner/pi-agent-core),
// in a process of its own, as loop-runs.mjs drives Arbor's runtime. Same payloads and script shape as
// harness.mjs: each step streams its 450 characters of text as one delta and one tool call whose ~150
// characters of JSON arguments arrive as one delta; the tool's input is checked against its schema
// (TypeBox here, as pi defines tools) and it answers the same 2,000 characters.
//   node bench/peers/pi-loop-runs.mjs <bare|session> <warmups> <repeats> <steps> <tmp>
// bare: the agent alone, nothing persisted. session: every message appended to pi's session file through its
// SessionManager on `message_end`, the way pi's coding agent persists a run.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "@mariozechner/pi-agent-core";
import { createAssistantMessageEventStream, Type } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { medianGapUs, runClock } from "../lib/stats.mjs";
import { NOOP_TOOL, PAYLOAD, prose, toolArgs, USER_PROMPT } from "../loop/harness.mjs";

const [mode, ...rest] = process.argv.slice(2);
const [warmups, repeats, steps] = rest.slice(0, 3).map(Number);
const tmp = rest[3];
if (!["bare", "session"].includes(mode) || !(warmups >= 0 && repeats > 0 && steps > 1) || !tmp)
  throw new Error("usage: pi-loop-runs.mjs <bare|session> <warmups> <repeats> <steps> <tmp>");

const MODEL = {
  id: "scripted",
  name: "scripted",
  api: "scripted",
  provider: "scripted",
  baseUrl: "http://127.0.0.1:0",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 16_384,
};

const noop = {
  name: NOOP_TOOL.name,
  label: NOOP_TOOL.name,
  description: NOOP_TOOL.description,
  parameters: Type.Object({
    n: Type.Number(),
    path: Type.Optional(Type.String()),
    query: Type.Optional(Type.String()),
  }),
  execute: async () => ({ content: [{ type: "text", text: NOOP_TOOL.result }], details: undefined }),
};

/** pi's stream function over harness.mjs's script: call i answers step i, streamed as a provider adapter streams. */
function scriptedStream() {
  let call = 0;
  return () => {
    const i = call++;
    const last = i === steps - 1;
    const stream = createAssistantMessageEventStream();
    const usage = {
      input: 100 + i,
      output: last ? 3 : 12,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const partial = {
      role: "assistant",
      content: [],
      api: MODEL.api,
      provider: MODEL.provider,
      model: MODEL.id,
      usage,
      stopReason: last ? "stop" : "toolUse",
      timestamp: Date.now(),
    };
    // Started on a later microtask, as a provider's stream starts after it is returned.
    queueMicrotask(() => {
      const say = prose(PAYLOAD.assistantText, last ? steps : i);
      stream.push({ type: "start", partial });
      partial.content.push({ type: "text", text: "" });
      stream.push({ type: "text_start", contentIndex: 0, partial });
      partial.content[0].text = say;
      stream.push({ type: "text_delta", contentIndex: 0, delta: say, partial });
      stream.push({ type: "text_end", contentIndex: 0, content: say, partial });
      if (!last) {
        const args = toolArgs(i);
        const call = { type: "toolCall", id: `call_${i}`, name: NOOP_TOOL.name, arguments: {} };
        partial.content.push(call);
        stream.push({ type: "toolcall_start", contentIndex: 1, partial });
        stream.push({ type: "toolcall_delta", contentIndex: 1, delta: JSON.stringify(args), partial });
        call.arguments = args;
        stream.push({ type: "toolcall_end", contentIndex: 1, toolCall: call, partial });
      }
      stream.push({ type: "done", reason: partial.stopReason, message: partial });
      stream.end(partial);
    });
    return stream;
  };
}

const cwd = join(tmp, "pi-workspace");
const sessionDir = join(tmp, "pi-sessions");
mkdirSync(cwd, { recursive: true });
mkdirSync(sessionDir, { recursive: true });

const runs = [];
let firstMs = 0;
let persisted = 0;
for (let i = 0; i < warmups + repeats; i++) {
  const starts = [];
  const clock = runClock();
  const t0 = performance.now();
  const agent = new Agent({
    initialState: { systemPrompt: "", model: MODEL, tools: [noop], messages: [] },
    streamFn: scriptedStream(),
  });
  const session = mode === "session" ? SessionManager.create(cwd, sessionDir) : undefined;
  agent.subscribe((event) => {
    if (event.type === "turn_start") starts.push(performance.now() - t0);
    else if (event.type === "message_end" && session) {
      const role = event.message.role;
      if (role === "user" || role === "assistant" || role === "toolResult") session.appendMessage(event.message);
    }
  });
  await agent.prompt(USER_PROMPT);
  const { ms, cpuMs, mainCpuMs } = clock();
  const messages = agent.state.messages;
  const assistants = messages.filter((m) => m.role === "assistant");
  if (assistants.length !== steps || assistants.some((m) => m.stopReason === "error"))
    throw new Error(
      `expected ${steps} assistant messages, pi's agent made ${assistants.length}: ${assistants.at(-1)?.errorMessage ?? ""}`,
    );
  if (messages.filter((m) => m.role === "toolResult" && !m.isError).length !== steps - 1)
    throw new Error("a tool call did not succeed in pi's agent");
  if (session) persisted = session.getEntries().length;
  if (i === 0) firstMs = ms;
  if (i < warmups) continue;
  runs.push({ ms, cpuMs, mainCpuMs, setupMs: null, stepUs: medianGapUs(starts) });
}
process.stdout.write(`${JSON.stringify({ firstMs, runs, ...(mode === "session" ? { entries: persisted } : {}) })}\n`);

// The density section's model, in its own process (forked with IPC) so that neither its streaming nor the
// section's SSE clients run on the event loop that times them: the testkit's fake OpenAI-compatible server,
// streaming like a real model (300 ms to the first token, then 50 tokens/s) with one `read` call a step until a run
// has made two. Each token names its request and place; the time it was written (monotonic clock, shared by every
// process on the machine) is kept and sent to the parent when it asks, then forgotten.
import { startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { monotonicMs } from "../lib/sse.mjs";

export const FIRST_TOKEN_MS = 300;
export const TOKEN_GAP_MS = 20; // 50 tokens/s
export const TOKENS_PER_STEP = 15;
export const TOOL_STEPS = 2; // then a closing step without a call: three model calls a run

/** A step: the first token after 300 ms, one token per 20 ms, then a `read` call until the run has made two. */
function step(call) {
  const messages = call.source === "http" ? (call.body?.messages ?? []) : [];
  const calls = messages.filter((m) => m.role === "tool").length;
  const actions = [{ type: "delay", ms: FIRST_TOKEN_MS }];
  for (let k = 0; k < TOKENS_PER_STEP; k++) {
    if (k > 0) actions.push({ type: "delay", ms: TOKEN_GAP_MS });
    actions.push(text(`‹${call.index}.${k}› `));
  }
  if (calls < TOOL_STEPS) actions.push(toolCall("read", { path: "notes.txt" }));
  return actions;
}

if (process.send) {
  let written = new Map();
  const fake = await startFakeOpenAI({
    script: Array.from({ length: 50_000 }, () => step),
    onDelta: (_index, delta) => {
      const m = /‹(\d+\.\d+)›/.exec(delta);
      if (m) written.set(m[1], monotonicMs());
    },
  });
  process.on("message", (m) => {
    if (m === "written") {
      process.send({ written: [...written] });
      written = new Map();
      // The fake server keeps every request it answered; a density run makes tens of thousands.
      fake.requests.length = 0;
    } else if (m === "close") {
      void fake.close().then(() => process.exit(0));
    }
  });
  process.send({ baseURL: fake.baseURL });
}

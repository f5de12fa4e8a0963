// Run in a fresh process by resume.mjs: opens the store, continues the session for one model call and
// prints one JSON line: time to open the store, from opening it to the first model call and to the result, and peak
// RSS (KB). `job.importOnly` measures what importing the library alone costs.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ownPeakRssKb } from "../lib/peak-rss.mjs";

const job = JSON.parse(process.argv[2]);
const core = await Promise.all([import("@arbor/core"), import("@arbor/core/store")]).then((parts) => Object.assign({}, ...parts));
const { scriptedModel, text, usage } = await import("@arbor/testkit");
if (job.importOnly) {
  console.log(JSON.stringify({ maxRssKB: ownPeakRssKb() }));
  process.exit(0);
}
const cwd = join(job.tmp, "workspace");
const arborHome = join(job.tmp, "arbor-home");
mkdirSync(cwd, { recursive: true });
mkdirSync(arborHome, { recursive: true });
const t0 = performance.now();
const store = await core.openStore(job.spec);
// Opening loads the store's modules (a SQL driver, the migrator) whatever the session's size.
const openMs = performance.now() - t0;
const runtime = core.createRuntime({
  store,
  model: scriptedModel([[text("Continuing."), usage({ inputTokens: 10, outputTokens: 2 })]], { record: false }),
  tools: [],
  cwd,
  arborHome,
  env: {},
  blobs: new core.MemoryBlobStore(),
});
const handle = runtime.runs.run({ sessionId: job.sessionId, prompt: "Go on from where you stopped." });
let firstCallMs;
let messages = 0;
for await (const event of handle) {
  if (event.type === "llm_start" && firstCallMs === undefined) firstCallMs = performance.now() - t0;
}
const result = await handle.result;
const doneMs = performance.now() - t0;
if (result.status !== "done") throw new Error(`run ended ${result.status}: ${result.error?.message}`);
messages = result.steps;
await runtime.close();
await store.close();
console.log(JSON.stringify({ openMs, firstCallMs, doneMs, steps: messages, maxRssKB: ownPeakRssKb() }));

// Records the run `arbor demo` replays: plays scripts/demo-script.json (a scripted model) through the
// real runtime, tools and a throwaway store on a fresh copy of the demo workspace, and writes what the
// model sent as packages/cli/demo/cassette.json. Regenerate after changing the script, a built-in
// tool's output or the prompt format (the demo then fails naming the step that no longer matches):
//
//   npm run build && node scripts/record-demo.mjs
import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRuntime, openStore, resolveConfig } from "@arbor/core";
import { CassetteRecorder, saveCassette } from "@arbor/core/llm";
import { MemoryBlobStore } from "@arbor/core/store";
import { scriptedModel } from "@arbor/testkit";

const root = fileURLToPath(new URL("..", import.meta.url));
const demo = join(root, "packages", "cli", "demo");
const out = join(demo, "cassette.json");
const script = JSON.parse(readFileSync(join(root, "scripts", "demo-script.json"), "utf8"));
const ref = `${script.model.provider}/${script.model.id}`;

const scratch = await mkdtemp(join(tmpdir(), "arbor-record-demo-"));
try {
  const workspace = join(scratch, "workspace");
  await cp(join(demo, "workspace"), workspace, { recursive: true });
  const store = await openStore(join(scratch, "store"));
  const recorder = new CassetteRecorder({ run: { prompt: script.prompt, model: ref, info: script.model.info } });
  const runtime = createRuntime({
    store,
    config: resolveConfig([{ source: "scripts/demo-script.json", value: { models: { [ref]: script.model.info } } }]),
    model: scriptedModel(script.steps, { provider: script.model.provider, modelId: script.model.id }),
    wrapModel: (model, use) => recorder.wrap(model, use.ref),
    cwd: workspace,
    arborHome: join(scratch, "home"),
    env: {},
    blobs: new MemoryBlobStore(),
    onPermission: () => "once",
  });
  const handle = runtime.run({ prompt: script.prompt });
  for await (const _event of handle) {
    // The events are the runtime's; the recording is the model's side.
  }
  const result = await handle.result;
  await runtime.close();
  await store.close();
  if (result.status !== "done") throw new Error(`The scripted run did not finish: ${result.error?.message ?? result.status}`);
  const cassette = recorder.cassette;
  // Latencies are the script's delays plus noise: rounded, so re-recording an unchanged script changes only the dates.
  for (const call of cassette.interactions) call.latencyMs = Math.round((call.latencyMs ?? 0) / 100) * 100;
  await saveCassette(out, cassette);
  console.log(`Recorded ${cassette.interactions.length} model calls (${result.steps} steps) to ${out}`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}

import { fileURLToPath } from "node:url";
import { ArborError, type ModelInfo } from "@arbor/core";
import { type Cassette, loadCassette } from "@arbor/core/llm";

/** The demo's files, shipped beside dist/ in the package (`files` in package.json). */
export const DEMO_DIR = fileURLToPath(new URL("../../demo/", import.meta.url));

/**
 * demo/cassette.json: a recorded run (made by scripts/record-demo.mjs from scripts/demo-script.json),
 * with the prompt it answers and the recorded model's name and prices.
 */
export interface Recording {
  prompt: string;
  model: string;
  info: ModelInfo;
  cassette: Cassette;
}

function broken(path: string, why: string): ArborError {
  return new ArborError("io_error", `The demo recording ${path} is broken (${why}); reinstall @arbor/cli.`);
}

/** Reads and checks the demo's cassette (its calls are checked against the run as it replays). */
export async function loadRecording(path = `${DEMO_DIR}cassette.json`): Promise<Recording> {
  let cassette: Cassette;
  try {
    cassette = await loadCassette(path);
  } catch (err) {
    throw broken(path, err instanceof Error ? err.message : String(err));
  }
  const { prompt, model, info } = cassette.run ?? {};
  if (prompt === undefined || prompt.trim() === "") throw broken(path, "no prompt");
  if (model === undefined || info === undefined) throw broken(path, "no model");
  if (cassette.interactions.length === 0) throw broken(path, "no model calls");
  return { prompt, model, info, cassette };
}

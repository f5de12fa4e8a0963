import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ArborError, type ModelInfo, ModelInfoSchema } from "@arbor/core";
import type { Script } from "@arbor/testkit";

/** The demo's files, shipped beside dist/ in the package (`files` in package.json). */
export const DEMO_DIR = fileURLToPath(new URL("../../demo/", import.meta.url));

/** demo/script.json: the prompt, the recorded model and its steps (a testkit script, plain data). */
export interface Recording {
  prompt: string;
  model: { provider: string; id: string; info: ModelInfo };
  steps: Script;
}

function broken(path: string, why: string): ArborError {
  return new ArborError("io_error", `The demo recording ${path} is broken (${why}); reinstall @arbor/cli.`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads and checks the recording; the scripted model checks each action as it plays it. */
export async function loadRecording(path = `${DEMO_DIR}script.json`): Promise<Recording> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw broken(path, err instanceof Error ? err.message : String(err));
  }
  if (!isObject(data) || typeof data.prompt !== "string" || data.prompt.trim() === "") throw broken(path, "no prompt");
  const model = data.model;
  if (!isObject(model) || typeof model.provider !== "string" || typeof model.id !== "string") throw broken(path, "no model");
  const info = ModelInfoSchema.safeParse(model.info);
  if (!info.success) throw broken(path, "bad model info");
  const steps = data.steps;
  const isStep = (s: unknown) => Array.isArray(s) && s.every((a) => isObject(a) && typeof a.type === "string");
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every(isStep)) throw broken(path, "bad steps");
  return { prompt: data.prompt, model: { provider: model.provider, id: model.id, info: info.data }, steps: steps as Script };
}

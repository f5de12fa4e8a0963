import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ArborError } from "../errors.js";
import { readTextIfExists } from "../file-system.js";
import { type ConfigLayer, envLayer, resolveConfig } from "./resolve.js";
import type { Config } from "./schema.js";

export interface LoadConfigOptions {
  /** The workspace; its arbor.json is read. */
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Settings from command-line flags: the highest precedence. */
  overrides?: Record<string, unknown>;
}

/** `$ARBOR_HOME`, else `~/.arbor`. */
export function arborHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const home = env.ARBOR_HOME;
  return home && home.trim() !== "" ? resolve(home) : join(homedir(), ".arbor");
}

function fileLayer(path: string): ConfigLayer | undefined {
  const text = readTextIfExists(path, "invalid_config");
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ArborError("invalid_config", `${path} is not valid JSON: ${(err as Error).message}`);
  }
  return { source: path, value: withPromptFiles(path, value) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Reads each agent's `promptFile` (relative to the config file naming it) into `prompt`, so a
 * later layer's `prompt` replaces it and the runtime never reads files. An agent giving both keeps
 * both, for the schema to reject with the file and key.
 */
function withPromptFiles(path: string, value: unknown): unknown {
  if (!isObject(value) || !isObject(value.agents)) return value;
  const agents: Record<string, unknown> = {};
  for (const [name, agent] of Object.entries(value.agents)) {
    if (!isObject(agent) || typeof agent.promptFile !== "string" || agent.prompt !== undefined) {
      agents[name] = agent;
      continue;
    }
    const file = resolve(dirname(path), agent.promptFile);
    let prompt: string;
    try {
      prompt = readFileSync(file, "utf8");
    } catch (err) {
      throw new ArborError(
        "invalid_config",
        `${path}: agents.${name}.promptFile: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the path is relative to ${dirname(path)}.`,
      );
    }
    if (prompt.trim() === "") throw new ArborError("invalid_config", `${path}: agents.${name}.promptFile: ${file} is empty.`);
    const { promptFile: _read, ...rest } = agent;
    agents[name] = { ...rest, prompt };
  }
  return { ...value, agents };
}

/** The command-line flags the CLI turns into overrides, by the config key each sets. */
const FLAG_NAMES: Readonly<Record<string, string>> = { baseURL: "--base-url", model: "--model", thinking: "--thinking" };

/**
 * Settings, lowest precedence first: built-in defaults, `$ARBOR_HOME/arbor.json`,
 * `$ARBOR_HOME/models.json` (the model pool and catalog overrides), `<cwd>/arbor.json`, environment
 * variables, then command-line overrides.
 */
export function loadConfig(opts: LoadConfigOptions): Config {
  const env = opts.env ?? process.env;
  const home = arborHome(env);
  const layers: ConfigLayer[] = [];
  for (const path of [join(home, "arbor.json"), join(home, "models.json"), join(resolve(opts.cwd), "arbor.json")]) {
    const layer = fileLayer(path);
    if (layer) layers.push(layer);
  }
  layers.push(envLayer(env));
  if (opts.overrides) layers.push({ source: "command-line options", value: opts.overrides, names: FLAG_NAMES });
  return resolveConfig(layers);
}

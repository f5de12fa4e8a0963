import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ArborError } from "../errors.js";
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
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ArborError("invalid_config", `Cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return { source: path, value: JSON.parse(text) };
  } catch (err) {
    throw new ArborError("invalid_config", `${path} is not valid JSON: ${(err as Error).message}`);
  }
}

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
  if (opts.overrides) layers.push({ source: "command-line options", value: opts.overrides });
  return resolveConfig(layers);
}

import { z } from "zod";
import { ArborError } from "../errors.js";
import { describeIssues } from "../model/validate.js";
import { type Config, ConfigSchema, ENV_KEYS } from "./schema.js";

/** One source of settings, lowest precedence first: a file's parsed JSON, or values from flags. */
export interface ConfigLayer {
  source: string;
  value: unknown;
  /**
   * What the user typed for a key, by its config path (`baseURL` → `ARBOR_BASE_URL`, `--base-url`),
   * so an error names the variable or flag to fix rather than an internal key.
   */
  names?: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Objects merge key by key; anything else in a later layer replaces the earlier value. */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Json, v) : v;
  return out;
}

function parseEnvValue(name: string, raw: string, kind: string): unknown {
  const bad = (expected: string) =>
    new ArborError("invalid_config", `Environment variable ${name}: expected ${expected}, got ${JSON.stringify(raw)}.`);
  switch (kind) {
    case "string":
      return raw;
    // A level name stays text for the schema to judge; digits are a token budget.
    case "thinking":
      return /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
    case "bool": {
      const v = raw.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(v)) return true;
      if (["0", "false", "no", "off"].includes(v)) return false;
      throw bad("true or false");
    }
    case "int":
    case "number": {
      const n = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(n) || (kind === "int" && !Number.isInteger(n))) {
        throw bad(kind === "int" ? "a whole number" : "a number");
      }
      return n;
    }
    default:
      throw bad(kind);
  }
}

/** The config layer made of the environment variables that are set. */
export function envLayer(env: Readonly<Record<string, string | undefined>>): ConfigLayer {
  let value: Json = {};
  for (const [name, path, kind] of ENV_KEYS) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    let leaf: unknown = parseEnvValue(name, raw, kind);
    for (let i = path.length - 1; i >= 0; i--) leaf = { [path[i] as string]: leaf };
    value = merge(value, leaf as Json);
  }
  return { source: "environment", value, names: ENV_NAMES };
}

const ENV_NAMES: Readonly<Record<string, string>> = Object.fromEntries(ENV_KEYS.map(([name, path]) => [path.join("."), name]));

/** A layer's problems, each named as the user gave it where the layer knows how. */
function layerIssues(layer: ConfigLayer, error: z.ZodError): string {
  const names = layer.names;
  if (names === undefined) return describeIssues(error, 5, ConfigSchema);
  const renamed = error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    const name = names[path];
    return name === undefined ? issue : { ...issue, path: [name] };
  });
  return describeIssues(new z.ZodError(renamed), 5, ConfigSchema);
}

/**
 * Validates every layer on its own (so an error names the file and key that caused it), then the
 * merged result. Pure.
 */
export function resolveConfig(layers: readonly ConfigLayer[]): Config {
  let merged: Json = {};
  for (const layer of layers) {
    if (!isObject(layer.value)) throw new ArborError("invalid_config", `${layer.source}: expected a JSON object.`);
    const r = ConfigSchema.safeParse(layer.value);
    if (!r.success) throw new ArborError("invalid_config", `${layer.source}: ${layerIssues(layer, r.error)}`);
    merged = merge(merged, layer.value);
  }
  const r = ConfigSchema.safeParse(merged);
  if (!r.success) throw new ArborError("invalid_config", `Configuration: ${describeIssues(r.error, 5, ConfigSchema)}`);
  return r.data;
}

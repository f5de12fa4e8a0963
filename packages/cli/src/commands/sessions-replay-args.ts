import { type OptionValues, stringOption } from "../args.js";
import { UsageError } from "../errors.js";

/** `--args` as a JSON object; the goal tool's own schema checks its fields when the runtime replays. */
export function replayArgs(values: OptionValues): Record<string, unknown> {
  const raw = stringOption(values, "args");
  if (raw === undefined)
    throw new UsageError(`missing --args '<json>': the goal call's new arguments, e.g. --args '{"add":"Test"}'.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`--args is not JSON (${(err as Error).message}): give the goal call's arguments as a JSON object.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--args must be a JSON object such as '{"add":"Test"}', got ${raw}.`);
  }
  return parsed as Record<string, unknown>;
}

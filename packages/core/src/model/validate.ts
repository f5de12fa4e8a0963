import type { z } from "zod";
import { ArborError, type ArborErrorCode } from "../errors.js";

type Issue = z.core.$ZodIssue;

const TYPE_NAMES: Readonly<Record<string, string>> = {
  record: "an object",
  object: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

/** What one alternative of a union wanted, in words: `one of "allow", "ask", "deny"`, `an object`. */
function wanted(issues: readonly Issue[]): string {
  const first = issues[0];
  if (first?.code === "invalid_value") return `one of ${first.values.map((v) => JSON.stringify(v)).join(", ")}`;
  if (first?.code === "invalid_type") return TYPE_NAMES[first.expected] ?? first.expected;
  return first?.message ?? "something else";
}

/** The schema a path leads to inside `schema`, through optional, default, object and record wrappers. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let at: z.ZodType | undefined = schema;
  for (let i = 0; at !== undefined; ) {
    const def = at._zod.def as unknown as {
      type: string;
      innerType?: z.ZodType;
      shape?: Record<string, z.ZodType>;
      valueType?: z.ZodType;
    };
    if (def.innerType !== undefined && def.type !== "object") {
      at = def.innerType;
      continue;
    }
    if (i === path.length) return at;
    const key = String(path[i++]);
    at = def.type === "object" ? def.shape?.[key] : def.type === "record" ? def.valueType : undefined;
  }
  return undefined;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] as number;
}

/** The known key nearest to a mistyped one, if it is near enough to be what was meant. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (best === undefined || d < best.d) best = { key: k, d };
  }
  return best !== undefined && best.d <= Math.max(1, Math.floor(best.key.length / 3)) ? best.key : undefined;
}

/** Unions report "Invalid input": say what each alternative wanted, or follow the one that got further. */
function flatten(issue: Issue): Issue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  // An alternative whose problems all lie deeper matched the value's shape: its problems are the real ones.
  const deeper = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
  if (deeper.length === 1)
    return (deeper[0] as Issue[]).flatMap((i) => flatten({ ...i, path: [...issue.path, ...i.path] } as Issue));
  const alternatives = issue.errors.map(wanted);
  return [{ ...issue, message: `Invalid value: expected ${alternatives.join(", or ")}` }];
}

function describe(issue: Issue, schema: z.ZodType | undefined): string {
  let message = issue.message;
  if (issue.code === "unrecognized_keys" && schema !== undefined) {
    const at = schemaAt(schema, issue.path);
    const def = at?._zod.def as { type?: string; shape?: Record<string, unknown> } | undefined;
    const known = def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
    const hints = issue.keys.flatMap((k) => {
      const near = nearestKey(k, known);
      if (near === undefined) return [];
      return [issue.keys.length === 1 ? `did you mean "${near}"?` : `"${k}": did you mean "${near}"?`];
    });
    if (hints.length > 0) message = `${message} (${hints.join("; ")})`;
    else if (known.length > 0) message = `${message} (known keys: ${known.join(", ")})`;
  }
  const path = issue.path.map(String).join(".");
  return path ? `${path}: ${message}` : message;
}

/**
 * A short, readable list of what was wrong, with paths: `message.content.0.text: expected string`.
 * A union says what each alternative wanted; given the `schema`, an unknown key gets the nearest
 * known one ("did you mean").
 */
export function describeIssues(error: z.ZodError, max = 5, schema?: z.ZodType): string {
  const issues = error.issues.flatMap(flatten);
  const lines = issues.slice(0, max).map((i) => describe(i, schema));
  if (issues.length > max) lines.push(`… and ${issues.length - max} more`);
  return lines.join("; ");
}

/** Parse at a boundary; bad input becomes an ArborError naming what was being read. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  code: ArborErrorCode = "invalid_input",
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ArborError(code, `Invalid ${what}: ${describeIssues(result.error, 5, schema)}`);
  return result.data;
}

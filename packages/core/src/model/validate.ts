import type { z } from "zod";
import { ArborError, type ArborErrorCode } from "../errors.js";

/** A short, readable list of what was wrong, with paths: `message.content.0.text: expected string`. */
export function describeIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((i) => {
    const path = i.path.map(String).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  if (error.issues.length > max) lines.push(`… and ${error.issues.length - max} more`);
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
  if (!result.success) throw new ArborError(code, `Invalid ${what}: ${describeIssues(result.error)}`);
  return result.data;
}

// The id formats and their checks, apart from the id schemas: the store checks every id it is given,
// and a command on an empty store must not load the validation library to do so.
import { ArborError } from "../errors.js";

/**
 * Session ids reach file names and SQL keys, so they are restricted to a safe alphabet. `@` and `.`
 * are allowed because sub-trace ids are `{parentId}@{mode}-{YYYYMMDDHHmmss}-{seq}`; a leading
 * alphanumeric rules out `.`/`..`. 240 characters leaves room for several levels of nesting while
 * staying under the 255-byte file-name limit.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,239}$/;
export const ENTRY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function describe(value: unknown): string {
  if (typeof value !== "string") return `a ${typeof value}`;
  if (value.length === 0) return "an empty string";
  if (value.length > 80) return `a ${value.length}-character string`;
  return JSON.stringify(value);
}

export function assertSessionId(value: unknown): asserts value is string {
  if (typeof value !== "string" || !SESSION_ID_PATTERN.test(value)) {
    throw new ArborError(
      "invalid_id",
      `Session id ${describe(value)} is not valid: use 1-240 characters from A-Z a-z 0-9 @ . _ - starting with a letter or digit.`,
    );
  }
}

export function assertEntryId(value: unknown): asserts value is string {
  if (typeof value !== "string" || !ENTRY_ID_PATTERN.test(value)) {
    throw new ArborError(
      "invalid_id",
      `Entry id ${describe(value)} is not valid: use 1-64 characters from A-Z a-z 0-9 _ - starting with a letter or digit.`,
    );
  }
}

/**
 * The value of a JSON text; undefined when it is not JSON (a JSON text never parses to undefined,
 * so the caller tells the two apart): for readers that report bad JSON in their own words, or check
 * the value against a schema that refuses undefined anyway.
 */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

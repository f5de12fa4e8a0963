/**
 * An ISO timestamp with milliseconds (the form Arbor stores) from what other agents write: ISO
 * strings with or without fractions, or Unix milliseconds. Anything unreadable is `undefined`.
 */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

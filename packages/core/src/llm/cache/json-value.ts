/**
 * JSON for AI SDK values. Prompts and stream parts hold Dates (`response-metadata.timestamp`), bytes
 * (file data) and URLs, which plain JSON would turn into strings or `{}` and never give back. They
 * are written as tagged objects and read back as what they were; an ordinary object that happens to
 * look like a tag is wrapped, so decoding never mistakes data for a tag.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const TAGS = new Set(["$date", "$bytes", "$url", "$obj"]);

function looksTagged(keys: readonly string[]): boolean {
  return keys.length === 1 && TAGS.has(keys[0] as string);
}

/**
 * `value` as JSON data. With `sorted`, object keys are written in code-point order, so equal values
 * give equal text whatever order their keys were set in: what request hashing needs. Undefined
 * members, functions and symbols are left out, as JSON.stringify does.
 */
export function encodeValue(value: unknown, sorted = false): Json {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return { $date: Number.isNaN(value.getTime()) ? null : value.toISOString() };
  if (value instanceof Uint8Array)
    return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (value instanceof URL) return { $url: value.href };
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : encodeValue(item, sorted)));
  if (typeof value === "object") {
    const source = value as Record<string, unknown>;
    const keys = Object.keys(source).filter((k) => {
      const v = source[k];
      return v !== undefined && typeof v !== "function" && typeof v !== "symbol";
    });
    if (sorted) keys.sort();
    const out: { [key: string]: Json } = {};
    for (const key of keys) out[key] = encodeValue(source[key], sorted);
    return looksTagged(keys) ? { $obj: out } : out;
  }
  return null;
}

/** The inverse of `encodeValue`. */
export function decodeValue(value: Json): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const keys = Object.keys(value);
  if (looksTagged(keys)) {
    const tagged = value as Record<string, Json>;
    if ("$date" in tagged) return typeof tagged.$date === "string" ? new Date(tagged.$date) : new Date(Number.NaN);
    if ("$bytes" in tagged) return new Uint8Array(Buffer.from(String(tagged.$bytes), "base64"));
    if ("$url" in tagged) return new URL(String(tagged.$url));
    return decodeMembers(tagged.$obj as Record<string, Json>);
  }
  return decodeMembers(value);
}

function decodeMembers(value: Record<string, Json>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = decodeValue(member);
  return out;
}

/** Canonical JSON text of a value (sorted keys, tagged Dates, bytes and URLs): the input of request hashes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(encodeValue(value, true));
}

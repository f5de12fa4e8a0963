import { chmodSync, mkdirSync } from "node:fs";
import type { z } from "zod";
import { readTextIfExists } from "../../file-system.js";
import { jsonOrUndefined } from "../../json-text.js";
import { writeFileAtomic } from "./atomic-write.js";

/** A folder only the owner may enter (0700), narrowed again if it was made wider before. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Replaces a file whole, readable by the owner alone (0600) from the moment it is created. */
export function writePrivateFile(path: string, content: string, fsync: boolean): void {
  writeFileAtomic(path, content, fsync, 0o600);
}

/**
 * Reads one JSON record checked by `schema`: undefined when the file is not there, and the caller's
 * error when it holds no JSON (`not-json`) or not the record (`not-record`).
 */
export function readJsonRecord<T>(
  path: string,
  schema: z.ZodType<T>,
  damaged: (problem: "not-json" | "not-record") => Error,
): T | undefined {
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  const value = jsonOrUndefined(text);
  if (value === undefined) throw damaged("not-json");
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw damaged("not-record");
  return parsed.data;
}

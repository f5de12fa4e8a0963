import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { writeFileAtomic } from "../src/store/file/atomic-write.js";
import { readJsonRecord, writePrivateFile } from "../src/store/file/private-files.js";

describe("private files", () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "arbor-private-"));
    // A wide umask: a file made readable by others and narrowed afterwards would show it here.
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the temporary file with the final mode, so a secret is never world-readable", () => {
    const file = join(dir, "secret.json");
    writeFileAtomic(file, "{}", false, 0o600);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, "old", { mode: 0o644 });
    writePrivateFile(file, '{"a":1}', true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe('{"a":1}');
  });

  it("reads a record, undefined when there is none, the caller's error when damaged", () => {
    const schema = z.object({ a: z.number() });
    const damaged = (problem: string) => new Error(problem);
    const file = join(dir, "r.json");
    expect(readJsonRecord(file, schema, damaged)).toBeUndefined();
    writeFileSync(file, '{"a":1}');
    expect(readJsonRecord(file, schema, damaged)).toEqual({ a: 1 });
    writeFileSync(file, "{");
    expect(() => readJsonRecord(file, schema, damaged)).toThrow("not-json");
    writeFileSync(file, '{"a":"x"}');
    expect(() => readJsonRecord(file, schema, damaged)).toThrow("not-record");
  });
});

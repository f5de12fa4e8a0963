import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CUSTOM_ENTRY_SCHEMAS, CUSTOM_MESSAGE_TYPES, isCustomEntryType, parseCustomEntry } from "../src/custom-entries.js";
import { RUN_ERROR_ENTRY_TYPE } from "../src/loop/run-error.js";
import { openStore } from "../src/store/open.js";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, d.name);
    if (d.isDirectory()) out.push(...(await sources(path)));
    else if (d.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("the custom entry catalogue", () => {
  it("names every custom type in the arbor. namespace", () => {
    for (const type of [...Object.keys(CUSTOM_ENTRY_SCHEMAS), ...CUSTOM_MESSAGE_TYPES]) expect(type).toMatch(/^arbor\.[a-z_]+$/);
  });

  it("holds every entry type the source declares or writes", async () => {
    const declared: string[] = [];
    const literal: string[] = [];
    for (const file of await sources(src)) {
      // An exporter writes another agent's file format, whose custom types are that format's, not entries.
      if (file.includes(`${join("src", "interop")}`) && file.endsWith("export.ts")) continue;
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/_ENTRY_TYPE = "([^"]+)"/g)) declared.push(m[1]!);
      for (const m of text.matchAll(/customType: "([^"]+)"/g)) literal.push(m[1]!);
    }
    expect(declared.length).toBeGreaterThan(5);
    const known = new Set<string>([...Object.keys(CUSTOM_ENTRY_SCHEMAS), ...CUSTOM_MESSAGE_TYPES]);
    expect(declared.filter((t) => !known.has(t))).toEqual([]);
    // An imported session keeps what another agent recorded under that agent's own namespace.
    const foreign = /^(pi|opencode|codex|claude-code)\./;
    expect(literal.filter((t) => !known.has(t) && !foreign.test(t))).toEqual([]);
  });

  it("parses a known entry's data and leaves other custom types alone", () => {
    const base = { id: "e1", parentId: null, timestamp: new Date(0).toISOString(), type: "custom" as const };
    const error = { ...base, customType: RUN_ERROR_ENTRY_TYPE, data: { code: "provider_error", message: "boom" } };
    expect(parseCustomEntry(error)?.data).toEqual({ code: "provider_error", message: "boom" });
    expect(parseCustomEntry({ ...error, data: { message: 3 } })).toBeUndefined();
    expect(parseCustomEntry({ ...base, customType: "plugin.note", data: {} })).toBeUndefined();
    expect(isCustomEntryType("run_error")).toBe(false);
  });

  it("reads the bare run_error of older file sessions as arbor.run_error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-custom-"));
    try {
      const writer = await openStore(dir);
      const session = await writer.createSession({ cwd: dir });
      await writer.appendEntry(session.id, {
        type: "custom",
        customType: "run_error",
        data: { code: "provider_error", message: "x" },
      });
      await writer.close();
      const reader = await openStore(dir);
      const [entry] = await reader.getActivePath(session.id);
      expect(entry).toMatchObject({ type: "custom", customType: RUN_ERROR_ENTRY_TYPE });
      expect(parseCustomEntry(entry!)?.customType).toBe(RUN_ERROR_ENTRY_TYPE);
      await reader.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

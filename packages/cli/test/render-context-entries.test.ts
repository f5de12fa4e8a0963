import type { Entry } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { summarizeEntry } from "../src/render/entry.js";

const base = { id: "e1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };

describe("context-management entries in one-line views", () => {
  it("a compaction shows its summary's first line that is not a heading, and the size it replaced", () => {
    const entry = {
      ...base,
      type: "compaction",
      summary: "## Goal\n\nShip the parser.\n## Next steps",
      firstKeptEntryId: null,
      tokensBefore: 9100,
    };
    expect(summarizeEntry(entry as Entry)).toEqual({ kind: "compaction", preview: "Ship the parser. (was 9100 tokens)" });
  });

  it("a prune says how many tool results it cleared", () => {
    const entry = { ...base, type: "custom", customType: "arbor.prune", data: { toolCallIds: ["a", "b", "c"] } };
    expect(summarizeEntry(entry as Entry)).toEqual({ kind: "custom", preview: "arbor.prune: 3 old tool results cleared" });
  });
});

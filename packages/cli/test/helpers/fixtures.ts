import type { Entry, SessionMeta, Snapshot } from "@arbor/core";
import { activePath } from "@arbor/core/session";
import { buildSnapshot } from "../../../core/src/session/tree.js";
import { newSessionMeta } from "../../../core/src/store/session-meta.js";

/** Pure fixtures for the renderer tests: entries and snapshots made by hand, no store. */

const AT = "2026-11-21T06:00:00.000Z";

export function meta(overrides: Partial<SessionMeta> = {}): SessionMeta {
  return { ...newSessionMeta(undefined, "file", "s1", AT), updatedAt: "2026-11-21T07:30:00.000Z", ...overrides };
}

export function user(id: string, parentId: string | null, text: string): Entry {
  return { id, parentId, type: "message", timestamp: AT, message: { role: "user", content: [{ type: "text", text }] } };
}

export function assistant(id: string, parentId: string | null, text: string): Entry {
  return { id, parentId, type: "message", timestamp: AT, message: { role: "assistant", content: [{ type: "text", text }] } };
}

export function label(id: string, parentId: string | null, targetId: string, name: string | undefined): Entry {
  const e: Entry = { id, parentId, type: "label", timestamp: AT, targetId };
  if (name !== undefined) e.label = name;
  return e;
}

/** A snapshot of `entries` with the leaf at `leafId`, built by core's own pure projection. */
export function snapshotOf(entries: Entry[], leafId: string | null, overrides: Partial<SessionMeta> = {}): Snapshot {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const path = activePath(leafId, (id) => byId.get(id));
  const m = meta({
    rootEntryId: entries[0]?.id ?? null,
    leafEntryId: leafId,
    totalMessages: entries.filter((e) => e.type === "message").length,
    ...overrides,
  });
  return buildSnapshot(m, entries, path);
}

/**
 * The sample tree used across the tests:
 *
 *   u1 → a1 ─┬→ u2 → a2            (u2 labelled "draft")
 *            ├→ u3 → a3 (leaf)
 *            └→ u4
 */
export function sampleTree(): { entries: Entry[]; snapshot: Snapshot } {
  const entries = [
    user("u1aaaaaaaaaa", null, "hello\nsecond line"),
    assistant("a1aaaaaaaaaa", "u1aaaaaaaaaa", "Hi! How can I help?"),
    user("u2aaaaaaaaaa", "a1aaaaaaaaaa", "first try"),
    assistant("a2aaaaaaaaaa", "u2aaaaaaaaaa", "answer one"),
    label("l1aaaaaaaaaa", "a2aaaaaaaaaa", "u2aaaaaaaaaa", "draft"),
    user("u3aaaaaaaaaa", "a1aaaaaaaaaa", "second try"),
    assistant("a3aaaaaaaaaa", "u3aaaaaaaaaa", "Done."),
    user("u4aaaaaaaaaa", "a1aaaaaaaaaa", "third try"),
  ];
  return { entries, snapshot: snapshotOf(entries, "a3aaaaaaaaaa") };
}

import type { Entry, Message, Snapshot } from "@arbor/core";
import { expect } from "vitest";
import { runArborInProcess } from "./in-process.js";

/** `arbor sessions show <id> --json` under `home` (run in this process), parsed. */
export async function snapshotOf(home: string, id: string): Promise<Snapshot> {
  const r = await runArborInProcess(["sessions", "show", id, "--json"], { home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Snapshot;
}

/** The messages of a snapshot, in order. */
export function messagesOf(s: Snapshot): Message[] {
  return s.entries.filter((e): e is Extract<Entry, { type: "message" }> => e.type === "message").map((e) => e.message);
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAtif } from "../../src/interop/atif/export.js";
import { AtifTrajectorySchema } from "../../src/interop/atif/schema.js";
import type { SessionExport } from "../../src/store/export-format.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { listSubTraces } from "../../src/trace/trace-query.js";
import { createNamespace, type SqlNamespace } from "../helpers/sql-databases.js";
import { allConversions, claudeFixture } from "./fixtures.js";

const conversions = allConversions();
const all = conversions.flatMap((c) => c.sessions);

for (const kind of ["file", "sqlite", "postgres"] as const) {
  describe(`imported sessions in the ${kind} store`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      if (kind === "file") {
        const dir = await mkdtemp(join(tmpdir(), "arbor-interop-"));
        store = await openStore({ kind: "file", dir });
        cleanup = () => rm(dir, { recursive: true, force: true });
      } else {
        const ns: SqlNamespace = await createNamespace(kind);
        store = await openStore(ns.spec);
        cleanup = () => ns.drop();
      }
      for (const s of all) await store.importSession(s);
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    it("every session reads back whole, with its tree, leaf and sub-traces", async () => {
      for (const c of conversions) {
        const [main, ...subs] = c.sessions as [SessionExport, ...SessionExport[]];
        const snap = await store.getSnapshot(main.session.id);
        expect(snap.entries.map((e) => [e.id, e.parentId])).toEqual(main.entries.map((e) => [e.id, e.parentId]));
        expect(snap.session.leafEntryId).toBe(main.session.leafEntryId);
        expect(snap.activePath.at(-1)).toBe(main.session.leafEntryId);
        expect((await listSubTraces(store, main.session.id)).map((s) => s.id).sort()).toEqual(
          subs.map((s) => s.session.id).sort(),
        );
        expect((snap.session as { importedFrom?: { agent?: string } }).importedFrom?.agent).toBeDefined();
      }
    });

    it("totals come from the imported usage", async () => {
      const codex = all.find((s) => s.session.id.startsWith("codex-")) as SessionExport;
      const meta = await store.getSession(codex.session.id);
      expect(meta?.totalTokens).toBeGreaterThan(0);
      expect(meta?.totalMessages).toBe(codex.entries.filter((e) => e.type === "message").length);
    });
  });
}

describe("ATIF export", () => {
  it("every imported session gives a valid trajectory of its active path", () => {
    for (const s of all) {
      const t = toAtif(s, { agentVersion: "0.0.0-test" });
      expect(AtifTrajectorySchema.safeParse(t).success, s.session.id).toBe(true);
      const byId = new Map(s.entries.map((e) => [e.id, e]));
      const path: string[] = [];
      for (let id = s.session.leafEntryId; id; id = byId.get(id)?.parentId ?? null) path.unshift(id);
      const onPath = path.map((id) => byId.get(id)).filter((e) => e !== undefined);
      const assistants = onPath.filter((e) => e.type === "message" && e.message.role === "assistant").length;
      expect(t.steps.filter((st) => st.source === "agent")).toHaveLength(assistants);
      // Every tool result on the path is an observation of some step.
      const results = onPath.flatMap((e) =>
        e.type === "message" ? e.message.content.filter((p) => p.type === "tool-result") : [],
      );
      const observed = t.steps.flatMap((st) => st.observation?.results ?? []).filter((r) => r.source_call_id);
      expect(observed).toHaveLength(results.length);
    }
  });

  it("a call that launched a sub-agent names its trajectory; tokens sum up", () => {
    const [main, sub] = claudeFixture("claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl", [
      "claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    ]).sessions as [SessionExport, SessionExport];
    const t = toAtif(main, { agentVersion: "1.2.3" });
    const refs = t.steps.flatMap((st) => st.observation?.results ?? []).flatMap((r) => r.subagent_trajectory_ref ?? []);
    expect(refs).toEqual([{ session_id: sub.session.id }]);
    expect(t.agent).toMatchObject({ name: "claude-code", version: "2.1.7" });
    expect(t.final_metrics?.total_steps).toBe(t.steps.length);
    expect(t.final_metrics?.total_prompt_tokens).toBeGreaterThan(0);
    expect(() => toAtif(main, { agentVersion: "1", leaf: "missing" })).toThrow(/has no entry missing/);
  });

  it("the schema refuses what Harbor would refuse", () => {
    const t = toAtif(all[1] as SessionExport, { agentVersion: "1" });
    expect(AtifTrajectorySchema.safeParse({ ...t, unknown: 1 }).success).toBe(false);
    expect(AtifTrajectorySchema.safeParse({ ...t, steps: t.steps.map((st, i) => ({ ...st, step_id: i + 2 })) }).success).toBe(
      false,
    );
    expect(
      AtifTrajectorySchema.safeParse({ ...t, steps: [{ step_id: 1, source: "user", message: "x", tool_calls: [] }] }).success,
    ).toBe(false);
  });
});

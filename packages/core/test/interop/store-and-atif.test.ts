import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
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

// Formats (timestamps) are our own schema's to check; this one judges shape and rules.
const atifJsonSchema = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validAtif = atifJsonSchema.compile(
  JSON.parse(readFileSync(new URL("./fixtures/atif-v1.7.schema.json", import.meta.url), "utf8")) as object,
);
/** The JSON Schema written from the RFC (not our own zod schema) judges each export. */
function expectValidAtif(t: unknown, name: string): void {
  const ok = validAtif(t);
  expect(ok ? [] : validAtif.errors?.map((e) => `${e.instancePath} ${e.message}`), name).toEqual([]);
}

describe("ATIF v1.7 export", () => {
  it("every imported session gives a valid trajectory of its active path", () => {
    for (const c of conversions) {
      const [s, ...subs] = c.sessions as [SessionExport, ...SessionExport[]];
      const t = toAtif(s, { agentVersion: "0.0.0-test", subSessions: new Map(subs.map((x) => [x.session.id, x])) });
      expect(AtifTrajectorySchema.safeParse(t).success, s.session.id).toBe(true);
      expectValidAtif(t, s.session.id);
      expect(t.schema_version).toBe("ATIF-v1.7");
      expect(t.trajectory_id).toBe(s.session.id);
      const byId = new Map(s.entries.map((e) => [e.id, e]));
      const path: string[] = [];
      for (let id = s.session.leafEntryId; id; id = byId.get(id)?.parentId ?? null) path.unshift(id);
      const onPath = path.map((id) => byId.get(id)).filter((e) => e !== undefined);
      const assistants = onPath.filter((e) => e.type === "message" && e.message.role === "assistant").length;
      const agentSteps = t.steps.filter((st) => st.source === "agent");
      expect(agentSteps).toHaveLength(assistants);
      expect(agentSteps.every((st) => st.llm_call_count === 1)).toBe(true);
      // Every tool result on the path is an observation of some step: of its call's step, or named in extra.
      const results = onPath.flatMap((e) =>
        e.type === "message" ? e.message.content.filter((p) => p.type === "tool-result") : [],
      );
      const observed = t.steps
        .flatMap((st) => st.observation?.results ?? [])
        .filter((r) => r.source_call_id || (r.extra as { tool_call_id?: string } | undefined)?.tool_call_id);
      expect(observed).toHaveLength(results.length);
    }
  });

  it("a sub-agent's trajectory is embedded and referenced by trajectory_id; without it, by file; tokens sum up", () => {
    const [main, sub] = claudeFixture("claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl", [
      "claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    ]).sessions as [SessionExport, SessionExport];
    const refsOf = (t: ReturnType<typeof toAtif>) =>
      t.steps.flatMap((st) => st.observation?.results ?? []).flatMap((r) => r.subagent_trajectory_ref ?? []);
    const t = toAtif(main, { agentVersion: "1.2.3", subSessions: new Map([[sub.session.id, sub]]) });
    expect(refsOf(t)).toEqual([{ trajectory_id: sub.session.id, session_id: sub.session.id }]);
    expect(t.subagent_trajectories?.map((x) => x.trajectory_id)).toEqual([sub.session.id]);
    expect(t.subagent_trajectories?.[0]?.steps.length).toBeGreaterThan(0);
    expectValidAtif(t, "embedded");
    const alone = toAtif(main, { agentVersion: "1.2.3" });
    expect(refsOf(alone)).toEqual([{ session_id: sub.session.id, trajectory_path: `${sub.session.id}.json` }]);
    expect(alone.subagent_trajectories).toBeUndefined();
    expect(t.agent).toMatchObject({ name: "claude-code", version: "2.1.7" });
    expect(t.final_metrics?.total_steps).toBe(t.steps.length);
    expect(t.final_metrics?.total_prompt_tokens).toBeGreaterThan(0);
    expect(() => toAtif(main, { agentVersion: "1", leaf: "missing" })).toThrow(/has no entry missing/);
    const empty = { ...main, session: { ...main.session, leafEntryId: null }, entries: [] };
    expect(() => toAtif(empty, { agentVersion: "1" })).toThrow(/at least one step/);
  });

  it("the schemas refuse what Harbor would refuse", () => {
    const t = toAtif(all[1] as SessionExport, { agentVersion: "1" });
    const refused = (bad: unknown, name: string) => {
      expect(AtifTrajectorySchema.safeParse(bad).success, name).toBe(false);
      expect(validAtif(bad), name).toBe(false);
    };
    refused({ ...t, unknown: 1 }, "unknown field");
    // Order is beyond a JSON Schema: only ours refuses step ids that do not count 1, 2, 3.
    expect(AtifTrajectorySchema.safeParse({ ...t, steps: t.steps.map((st, i) => ({ ...st, step_id: i + 2 })) }).success).toBe(
      false,
    );
    refused({ ...t, steps: [{ step_id: 1, source: "user", message: "x", tool_calls: [] }] }, "user step with calls");
    refused({ ...t, steps: [{ step_id: 1, source: "system", message: "x", reasoning_content: "r" }] }, "system reasoning");
    refused({ ...t, steps: [] }, "no steps");
    const ref = (r: object) => ({
      ...t,
      steps: [{ step_id: 1, source: "system", message: "x", observation: { results: [{ subagent_trajectory_ref: [r] }] } }],
    });
    refused(ref({ session_id: "s" }), "a ref by session id alone");
    expect(AtifTrajectorySchema.safeParse(ref({ trajectory_path: "s.json" })).success).toBe(true);
    const sub = { ...t, trajectory_id: "x" };
    expect(AtifTrajectorySchema.safeParse({ ...t, subagent_trajectories: [sub, sub] }).success).toBe(false);
    expect(AtifTrajectorySchema.safeParse({ ...t, subagent_trajectories: [{ ...t, trajectory_id: undefined }] }).success).toBe(
      false,
    );
    const orphan = {
      ...t,
      steps: [{ step_id: 1, source: "system", message: "x", observation: { results: [{ source_call_id: "c9" }] } }],
    };
    expect(AtifTrajectorySchema.safeParse(orphan).success).toBe(false);
  });
});

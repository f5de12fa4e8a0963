import type { Entry, SessionMeta, Store } from "@arbor/core";

export interface BigSession {
  meta: SessionMeta;
  /** The entry where the big side branch starts (its fork point). */
  forkId: string;
  sideBranchLength: number;
}

/**
 * A session of `total` entries imported in one go (appending 30,000 one by one would take the test's
 * whole budget): a main line of user/assistant turns, one side branch of `sideBranchLength` entries
 * forking early, and a compaction, a branch summary and a label near the leaf.
 */
export async function importBigSession(store: Store, total: number, sideBranchLength: number): Promise<BigSession> {
  const base = await store.exportSession((await store.createSession({ title: "Big session" })).id);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const entries: Entry[] = [];
  let n = 0;
  const add = (parentId: string | null, fields: Record<string, unknown>): string => {
    const id = `e${String(n).padStart(6, "0")}`;
    entries.push({ id, parentId, timestamp: new Date(start + n * 1000).toISOString(), ...fields } as Entry);
    n++;
    return id;
  };
  const message = (parentId: string | null, i: number): string =>
    i % 2 === 0
      ? add(parentId, { type: "message", message: { role: "user", content: [{ type: "text", text: `Question number ${i}` }] } })
      : add(parentId, {
          type: "message",
          message: {
            role: "assistant",
            content: [{ type: "text", text: `Answer number ${i}, with some more words to fill the row.` }],
            model: "scripted/model",
            tokens: { input: 100, output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
            // A model call's own message carries its duration: the timeline draws each as a span.
            durationMs: 800,
          },
        });

  let mainTip: string | null = null;
  for (let i = 0; i < 100; i++) mainTip = message(mainTip, i);
  const forkId = mainTip as string;
  let sideTip = forkId;
  for (let i = 0; i < sideBranchLength; i++) sideTip = message(sideTip, 100 + i);
  const reserved = 4;
  const mainRest = total - n - reserved;
  for (let i = 0; i < mainRest; i++) mainTip = message(mainTip, 100 + sideBranchLength + i);
  mainTip = add(mainTip, {
    type: "compaction",
    summary: "The conversation so far: many questions answered.",
    firstKeptEntryId: null,
    tokensBefore: 120000,
  });
  mainTip = add(mainTip, { type: "branch_summary", fromId: sideTip, summary: "The side branch explored other answers." });
  const labelled = message(mainTip, 1);
  const leaf = add(labelled, { type: "label", targetId: labelled, label: "checkpoint" });
  const meta = await store.importSession({ ...base, session: { ...base.session, leafEntryId: leaf }, entries }, { newId: true });
  return { meta, forkId, sideBranchLength };
}

import type { Entry, SessionMeta, Store } from "@arbor/core";

export interface BigSession {
  meta: SessionMeta;
  /** The entry where the big side branch starts (its fork point). */
  forkId: string;
  sideBranchLength: number;
}

/** The plan of the big session: five goals of four steps each, the last step of the last one under way. */
const TOP_GOALS = 5;
const STEPS_PER_GOAL = 4;

function goalTree(timestamp: string) {
  const goals = [];
  const stats = { messageCount: 0, totalTokens: 0, totalCost: 0 };
  for (let g = 0; g < TOP_GOALS; g++) {
    const id = g * (STEPS_PER_GOAL + 1) + 1;
    const last = g === TOP_GOALS - 1;
    goals.push({
      id: String(id),
      parentId: null,
      type: "normal",
      description: `Part ${g + 1} of the work`,
      reason: "",
      status: last ? "in_progress" : "completed",
      selfStats: stats,
      cumulativeStats: stats,
      createdAt: timestamp,
      updatedAt: timestamp,
    });
    for (let s = 1; s <= STEPS_PER_GOAL; s++) {
      goals.push({
        id: String(id + s),
        parentId: String(id),
        type: "normal",
        description: `Step ${s} of part ${g + 1}`,
        reason: "",
        status: last && s === STEPS_PER_GOAL ? "in_progress" : "completed",
        selfStats: stats,
        cumulativeStats: stats,
        createdAt: timestamp,
        updatedAt: timestamp,
      });
    }
  }
  const count = TOP_GOALS * (STEPS_PER_GOAL + 1);
  return { mission: "Answer every question", currentId: String(count), goals, nextId: count + 1 };
}

/** The step goal (its internal id) that message `i` of `total` was written under: the plan's steps in order. */
function stepGoalOf(i: number, total: number): string {
  const step = Math.min(TOP_GOALS * STEPS_PER_GOAL - 1, Math.floor((i / total) * TOP_GOALS * STEPS_PER_GOAL));
  const part = Math.floor(step / STEPS_PER_GOAL);
  return String(part * (STEPS_PER_GOAL + 1) + 1 + (step % STEPS_PER_GOAL) + 1);
}

/** An answer in Markdown, as models write them: emphasis and code in every one, a list, and now and then a code block and a table. */
function answerText(i: number): string {
  const parts = [`**Answer ${i}**: the parser reads \`input\` and returns *tokens*, with some more words to fill the row.`];
  if (i % 5 === 1) parts.push("- the first point\n- the second point, with `code`");
  if (i % 25 === 1) parts.push('```ts\nexport function parse(input: string): string[] {\n  return input.split(" ");\n}\n```');
  if (i % 50 === 1) parts.push("| file | change |\n| --- | --- |\n| src/parse.ts | split on spaces |");
  return parts.join("\n\n");
}

/**
 * A session of `total` entries imported in one go (appending 30,000 one by one would take the test's
 * whole budget): a main line of user/assistant turns in Markdown under a plan of twenty steps, one
 * side branch of `sideBranchLength` entries forking early, and a compaction, a branch summary and a
 * label near the leaf.
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
  const message = (parentId: string | null, i: number): string => {
    const goalId = stepGoalOf(i, total);
    return i % 2 === 0
      ? add(parentId, {
          type: "message",
          message: { role: "user", content: [{ type: "text", text: `Question number ${i}` }], goalId },
        })
      : add(parentId, {
          type: "message",
          message: {
            role: "assistant",
            content: [{ type: "text", text: answerText(i) }],
            model: "scripted/model",
            tokens: { input: 100 + (i % 1000), output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
            // A model call's own message carries its duration: the timeline draws each as a span.
            durationMs: 800,
            goalId,
          },
        });
  };

  // The plan is recorded once, at the start; the messages' goal ids place them under its steps.
  let mainTip: string | null = add(null, {
    type: "custom",
    customType: "arbor.goal_tree",
    data: { tree: goalTree(new Date(start).toISOString()) },
  });
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

import { type StepContext, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { Summarizer } from "../../src/context/summarizer.js";
import { isArborError } from "../../src/errors.js";
import type { Entry } from "../../src/model/entry.js";
import type { Message } from "../../src/model/message.js";
import { compact as compactContext } from "../../src/runtime/write-compaction.js";
import { applyEntry, buildContext, contextMessages } from "../../src/session/context.js";
import { type ContextState, EMPTY_CONTEXT } from "../../src/session/context-state.js";
import { PRUNED_OUTPUT } from "../../src/session/prune-entry.js";
import type { Store } from "../../src/store/store.js";
import { Chain, charCount } from "./entries.js";

/** A summarizer that "remembers" every marker (m<number>) it was shown, so coverage can be checked literally. */
function echoSummarizer(): Summarizer {
  const step = (call: StepContext) => {
    const prompt = (call as { options: { prompt: Array<{ content: unknown }> } }).options.prompt;
    const request = JSON.stringify(prompt[1]?.content);
    const markers = [...new Set(request.match(/\bm\d+\b/g) ?? [])].sort();
    return [text(`S ${markers.join(" ")}`)];
  };
  const model = scriptedModel(
    Array.from({ length: 100 }, () => step),
    { record: false },
  );
  return new Summarizer({
    model: { ref: "testkit/echo", model, info: { limit: { context: 1_000_000, output: 10_000 } } },
    count: (t) => t.length,
    clock: { now: () => 0, sleep: async () => {} },
    retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0, jitter: 0, streamIdleTimeoutMs: 0 },
    signal: new AbortController().signal,
  });
}

/** Just enough of a Store for the compactor: appends go to the chain, under the current leaf. */
function chainStore(chain: Chain, path: Entry[]): Store {
  const append = (fields: Record<string, unknown>) => {
    const entry = {
      id: `x${chain.entries.length + 1}`,
      parentId: path.at(-1)?.id ?? null,
      timestamp: "2026-01-01T00:00:00.000Z",
      ...fields,
    } as Entry;
    chain.entries.push(entry);
    path.push(entry);
    return Promise.resolve(entry);
  };
  return {
    appendCompaction: (_: string, c: Record<string, unknown>) => append({ type: "compaction", ...c }),
    appendEntry: (_: string, e: Record<string, unknown>) => append(e),
  } as unknown as Store;
}

function rng(seed: number) {
  let s = seed;
  return (k: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return (s >>> 8) % k; // the low bits of this generator cycle quickly
  };
}

function messagesOf(state: ContextState): Message[] {
  return contextMessages(state);
}

/** No tool call is separated from its result: each result follows its call, each call is answered. */
function checkPairs(state: ContextState): void {
  const open = new Set<string>();
  for (const message of messagesOf(state)) {
    if (message.role === "assistant") {
      expect(open.size, "a call was left without its result").toBe(0);
      for (const part of message.content) if (part.type === "tool-call") open.add(part.toolCallId);
    } else if (message.role === "tool") {
      for (const part of message.content) {
        expect(open.has(part.toolCallId), `result ${part.toolCallId} without its call`).toBe(true);
        open.delete(part.toolCallId);
      }
    } else {
      expect(open.size, "a call was left without its result").toBe(0);
    }
  }
}

describe("context invariants over random sessions with 1–5 compactions", () => {
  it("every message is in context or covered by a summary; no call is separated from its result", async () => {
    const random = rng(20261121);
    let compactionsSeen = 0;
    for (let round = 0; round < 120; round++) {
      const chain = new Chain(`r${round}_`);
      const path: Entry[] = [];
      const store = chainStore(chain, path);
      const summarizer = echoSummarizer();
      const wanted = 1 + (round % 5);
      let compactions = 0;
      let state: ContextState = EMPTY_CONTEXT;
      let marker = 0;
      /** Results pruned before they left the context: their text was cleared on purpose, their call stays covered. */
      const pruned = new Set<string>();
      const markerOf = new Map<string, string>();
      const add = (entry: Entry) => {
        if (path.at(-1) && entry.parentId !== path.at(-1)!.id) (entry as { parentId: string | null }).parentId = path.at(-1)!.id;
        path.push(entry);
        state = applyEntry(state, entry);
      };
      const checkpoints: Array<{ state: ContextState; json: string }> = [];

      for (let step = 0; step < 60 && (compactions < wanted || step < 20); step++) {
        const action = random(10);
        if (action < 2) {
          const m = `m${++marker}`;
          const e = chain.user(`${m} ${"u".repeat(random(200))}`, path.at(-1)?.id ?? null);
          markerOf.set(e.id, m);
          add(e);
        } else if (action < 4) {
          const m = `m${++marker}`;
          const e = chain.assistant(`${m} ${"a".repeat(random(200))}`, path.at(-1)?.id ?? null);
          markerOf.set(e.id, m);
          add(e);
        } else if (action < 8) {
          const ids = Array.from({ length: 1 + random(3) }, () => `m${++marker}`);
          const call = chain.call(ids, "read", path.at(-1)?.id ?? null);
          markerOf.set(call.id, ids.join(" "));
          add(call);
          for (const id of ids) {
            const r = chain.result(id, `${id} ${"r".repeat(random(600))}`, "read", path.at(-1)!.id);
            markerOf.set(r.id, id);
            add(r);
          }
        } else if (action === 8) {
          const inContext = messagesOf(state).flatMap((m) => (m.role === "tool" ? m.content.map((p) => p.toolCallId) : []));
          if (inContext.length === 0) continue;
          const chosen = inContext.filter(() => random(3) === 0);
          if (chosen.length === 0) continue;
          for (const id of chosen) pruned.add(id);
          add(chain.prune(chosen, path.at(-1)!.id));
        } else if (compactions < wanted && state.length > 1) {
          const budget = [0, 50, 300, 1_000, 3_000][random(5)]!;
          try {
            const outcome = await compactContext({
              store,
              sessionId: "s",
              state,
              summarizer,
              count: charCount,
              keepTokens: budget,
              tokensBefore: 0,
              mode: "auto",
              continuation: random(2) === 0,
            });
            state = outcome.state;
            compactions++;
          } catch (err) {
            if (!isArborError(err, "context_overflow")) throw err;
          }
        }
        checkPairs(state);
        if (random(4) === 0) checkpoints.push({ state, json: JSON.stringify(messagesOf(state)) });
      }
      compactionsSeen += compactions;

      // Coverage: each message's marker is still in what the model sees (verbatim or in the summary).
      const seen = JSON.stringify(messagesOf(state));
      for (const entry of path) {
        const m = markerOf.get(entry.id);
        if (!m) continue;
        for (const one of m.split(" ")) {
          const covered = new RegExp(`\\b${one}\\b`).test(seen) || pruned.has(one);
          expect(covered, `${one} (entry ${entry.id}) was dropped without a summary; round ${round}`).toBe(true);
        }
      }
      // The incremental state agrees with a build from the stored path, and older states never changed.
      expect(messagesOf(buildContext(path))).toEqual(messagesOf(state));
      for (const c of checkpoints) expect(JSON.stringify(messagesOf(c.state))).toBe(c.json);
    }
    expect(compactionsSeen).toBeGreaterThan(200);
  });

  it("pruning or compacting one branch leaves its sibling intact", async () => {
    const random = rng(7);
    for (let round = 0; round < 50; round++) {
      const chain = new Chain(`b${round}_`);
      const shared: Entry[] = [];
      for (let i = 0; i < 6 + random(6); i++) {
        const id = `t${round}_${i}`;
        shared.push(chain.call([id], "read", shared.at(-1)?.id ?? null));
        shared.push(chain.result(id, `out ${id} ${"z".repeat(random(300))}`, "read", shared.at(-1)!.id));
      }
      const fork = buildContext(shared);
      const before = JSON.stringify(messagesOf(fork));
      const ids = messagesOf(fork).flatMap((m) => (m.role === "tool" ? m.content.map((p) => p.toolCallId) : []));

      // Branch A: prune some results, then maybe compact.
      const pathA = [...shared];
      const storeA = chainStore(chain, pathA);
      const prune = chain.prune(ids.filter(() => random(2) === 0).concat(ids[0]!), shared.at(-1)!.id);
      pathA.push(prune);
      let a = applyEntry(fork, prune);
      if (random(2) === 0) {
        a = (
          await compactContext({
            store: storeA,
            sessionId: "s",
            state: a,
            summarizer: echoSummarizer(),
            count: charCount,
            keepTokens: 200,
            tokensBefore: 0,
            mode: "manual",
            continuation: false,
          })
        ).state;
      }
      // Branch B: continues from the same fork state.
      const bEntry = chain.user("on B", shared.at(-1)!.id);
      const b = applyEntry(fork, bEntry);

      expect(JSON.stringify(messagesOf(fork))).toBe(before);
      const bOutputs = messagesOf(b).flatMap((m) => (m.role === "tool" ? m.content.map((p) => p.output) : []));
      expect(bOutputs).toHaveLength(ids.length);
      expect(JSON.stringify(bOutputs)).not.toContain(PRUNED_OUTPUT);
      expect(messagesOf(b)).toEqual(messagesOf(buildContext([...shared, bEntry])));
      expect(JSON.stringify(messagesOf(a))).not.toBe(JSON.stringify(messagesOf(b)));
    }
  });
});

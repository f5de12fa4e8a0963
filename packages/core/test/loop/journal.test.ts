import { describe, expect, it } from "vitest";
import { appendCustom, appendMessage } from "../../src/loop/journal.js";
import type { RunContext, RunExtension } from "../../src/loop/run-context.js";
import { EMPTY_TALLY } from "../../src/loop/tally.js";
import { TraceSpend } from "../../src/loop/trace-spend.js";
import { buildContext } from "../../src/session/context.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";

/** The part of a run the journal touches; the rest of a RunContext is never read by it. */
async function runOn(store: Store, extensions: RunExtension[], seen: string[]) {
  const session = await store.createSession({ cwd: "/" });
  const ctx = {
    sessionId: session.id,
    store,
    state: buildContext([]),
    tally: EMPTY_TALLY,
    traceSpend: new TraceSpend({}),
    extensions,
    publish: (event: { event: string }) => void seen.push(`publish ${event.event}`),
  };
  return ctx as unknown as RunContext;
}

describe("the run's journal: one write door", () => {
  it("writes the store, then advances the context, then tells extensions and watchers", async () => {
    const store = await openStore("sqlite::memory:");
    const seen: string[] = [];
    const ext: RunExtension = {
      name: "probe",
      message: (_ctx, message) => {
        seen.push("tag");
        return { ...message, goalId: "1" };
      },
      written: (ctx, entry) => {
        seen.push(`written ${entry.id === ctx.state.leafId ? "at the leaf" : "behind"}`);
        return undefined;
      },
    };
    const ctx = await runOn(store, [ext], seen);
    const entry = await appendMessage(ctx, { role: "user", content: [{ type: "text", text: "hi" }] });
    expect(seen).toEqual(["tag", "written at the leaf", "publish message_added"]);
    expect(ctx.state.leafId).toBe(entry.id);
    expect((await store.getActivePath(ctx.sessionId)).map((e) => e.id)).toEqual([entry.id]);
    expect(entry).toMatchObject({ message: { goalId: "1" } });
    const custom = await appendCustom(ctx, "arbor.prune", { toolCallIds: ["c1"] });
    expect(ctx.state.leafId).toBe(custom.id);
    await store.close();
  });

  it("a write the store refuses changes neither the context nor what watchers hear", async () => {
    const store = await openStore("sqlite::memory:");
    const seen: string[] = [];
    const ctx = await runOn(store, [], seen);
    const before = ctx.state;
    await expect(appendMessage(ctx, { role: "nobody" } as never)).rejects.toThrow();
    expect(ctx.state).toBe(before);
    expect(seen).toEqual([]);
    await store.close();
  });
});

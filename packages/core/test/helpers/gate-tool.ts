import { z } from "zod";
import { defineTool, type ToolResult } from "../../src/tools/tool.js";

/**
 * A tool named `gate` whose calls each wait until released (or the run is aborted): a run held
 * mid-step, so a test can act meanwhile. `reached` resolves once the first call is held.
 */
export function gateTool() {
  const held: Array<() => void> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let calls = 0;
  const tool = defineTool({
    name: "gate",
    description: "Waits until released.",
    input: z.object({}),
    execute: (_input, ctx) =>
      new Promise<ToolResult>((resolve, reject) => {
        held.push(() => resolve({ output: "released" }));
        ctx.abort.addEventListener("abort", () => reject(ctx.abort.reason), { once: true });
        calls++;
        for (const w of waiters.filter((w) => w.n <= calls)) w.resolve();
      }),
  });
  /** Resolves once the `n`th call (from 1) is being held. */
  const reachedCall = (n: number) => new Promise<void>((resolve) => (calls >= n ? resolve() : waiters.push({ n, resolve })));
  return { tool, reached: reachedCall(1), reachedCall, release: () => held.shift()?.() };
}

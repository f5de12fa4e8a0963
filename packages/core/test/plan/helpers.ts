import type { LanguageModelV4 } from "@ai-sdk/provider";
import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { resolveConfig } from "../../src/config/resolve.js";
import { isArborError } from "../../src/errors.js";
import type { RunHandle } from "../../src/loop/run-types.js";
import type { Entry } from "../../src/model/entry.js";
import type { RunEvent } from "../../src/model/run-events.js";

const STEP = /Now carry out step \d+: (.*)$/;

/**
 * One model for a plan-mode run: the main agent answers the user's prompt, each executor its step
 * (matched by the step's title), the replanner its "Replan:" prompts. Deterministic whatever order
 * calls arrive in.
 */
export function planModel(parts: {
  main: LanguageModelV4;
  steps: Record<string, LanguageModelV4>;
  replanner?: LanguageModelV4;
}): LanguageModelV4 {
  return routedModel({
    route: (prompt) => {
      const task = taskOf(prompt);
      if (task.startsWith("Replan:")) return "replanner";
      const step = STEP.exec(task)?.[1];
      return step ?? "main";
    },
    models: { main: parts.main, ...parts.steps, replanner: parts.replanner ?? scriptedModel([]) },
  });
}

export function planConfig(plan: { requireApproval?: boolean; maxSteps?: number; revisionEnabled?: boolean; enabled?: boolean }) {
  return resolveConfig([{ source: "test", value: { plan } }]);
}

export function ofType<T extends RunEvent["type"]>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

/** `step_id:status` of every plan_updated event, in order. */
export function stepUpdates(events: readonly RunEvent[]): string[] {
  return ofType(events, "plan_updated").map((e) => `${e.step_id}:${e.status}`);
}

export function entriesOf<T extends Entry["type"]>(path: readonly Entry[], type: T): Extract<Entry, { type: T }>[] {
  return path.filter((e): e is Extract<Entry, { type: T }> => e.type === type);
}

/** The two steps of the "Check the repo" plan the approval tests make, each answered by its executor. */
export const checkRepoSteps = () => ({
  "Read the code": scriptedModel([[text("read it")]]),
  "Run the tests": scriptedModel([[text("tests pass")]]),
});

/** A main agent that proposes the "Check the repo" plan. */
export const checkRepoPlanner = () =>
  scriptedModel([[toolCall("plan_create", { title: "Check the repo", steps: ["Read the code", "Run the tests"] })]]);

/** Plays a run's events until `stop` says so (or the run ends); returns them and `rest`, which plays the others. */
export async function until(handle: RunHandle, stop: (e: RunEvent) => boolean) {
  const events: RunEvent[] = [];
  const iterator = handle[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    events.push(next.value);
    if (stop(next.value)) break;
  }
  return {
    events,
    async rest(): Promise<RunEvent[]> {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return events;
        events.push(next.value);
      }
    },
  };
}

/** The code of the ArborError `promise` rejects with; fails the test if it resolves or throws anything else. */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isArborError(err)) return err.code;
    throw err;
  }
  throw new Error("expected an error");
}

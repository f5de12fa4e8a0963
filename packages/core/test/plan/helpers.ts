import type { LanguageModelV4 } from "@ai-sdk/provider";
import { routedModel, scriptedModel, taskOf } from "@arbor/testkit";
import { resolveConfig } from "../../src/config/resolve.js";
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

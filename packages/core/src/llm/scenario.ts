import type { ModelResolver, ResolvedModel } from "./resolved-model.js";
import type { RetryOptions } from "./retry.js";

/** The scenarios of the model pool the runtime itself uses, besides the run's own model. */
export type RuntimeScenario = "compaction" | "replanner" | "title" | "summary" | "memory";

interface ScenarioRule {
  /** Without a pool model: the run's model, or none (the caller does without). */
  readonly fallback: "run" | "none";
  /** Without a usable model the caller can go on (true), or the user must hear why not (false). */
  readonly optional: boolean;
  /** Retries a call makes: the run's policy, or a fixed count for calls not worth waiting for. */
  readonly retries: "run" | number;
}

/**
 * One rule for every scenario: the pool's model, else the fallback. A summary is needed to go on,
 * so its model must resolve and its calls retry like the run's; a replan or a title is a nicety,
 * so a model that cannot be resolved or a call that fails means doing without, at once. A title
 * never costs a call to the run's model: without a pool model it is the prompt's first line.
 */
const SCENARIOS: Readonly<Record<RuntimeScenario, ScenarioRule>> = {
  compaction: { fallback: "run", optional: false, retries: "run" },
  replanner: { fallback: "run", optional: true, retries: 0 },
  title: { fallback: "none", optional: true, retries: 0 },
  // A session summary the user asked for: the run's model without a pool one, and its failure is theirs to hear.
  summary: { fallback: "run", optional: false, retries: "run" },
  // Memories picked after a run (MEMORY_AUTO_EXTRACT): worth the run's model, never worth a failure.
  memory: { fallback: "run", optional: true, retries: 0 },
};

/**
 * The model for a scenario: `override` (an agent's own model) first, then the pool's, then the
 * scenario's fallback. Throws the resolver's ArborError for a scenario that is not optional.
 */
export function scenarioModel(
  models: () => ModelResolver,
  scenario: RuntimeScenario,
  run: ResolvedModel,
  override?: string,
): ResolvedModel | undefined {
  const rule = SCENARIOS[scenario];
  try {
    if (override !== undefined) return models().resolve(override);
    return models().forScenario(scenario) ?? (rule.fallback === "run" ? run : undefined);
  } catch (err) {
    if (rule.optional) return undefined;
    throw err;
  }
}

/** The retry policy of a scenario's calls, given the run's. */
export function scenarioRetry(scenario: RuntimeScenario, run: Required<RetryOptions>): Required<RetryOptions> {
  const { retries } = SCENARIOS[scenario];
  return retries === "run" ? run : { ...run, maxRetries: retries };
}

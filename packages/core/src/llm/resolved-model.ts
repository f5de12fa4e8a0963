import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelInfo } from "./catalog.js";

/** A model ready to call: the AI SDK instance, its `provider/model` name and its catalog limits and prices. */
export interface ResolvedModel {
  ref: string;
  model: LanguageModelV4;
  info: ModelInfo;
}

/** Scenarios of the model pool: what a model is used for; plugins may use other names. */
export type ModelScenario = "llm" | "compaction" | "title" | "summary" | "replanner" | (string & {});

/** Turns `provider/model` strings and pool scenarios into model instances (see llm/registry.ts). */
export interface ModelResolver {
  /** Throws an ArborError (`invalid_model`, `missing_api_key`) before any request is made. */
  resolve(ref: string): ResolvedModel;
  /** The pool's model for a scenario, or undefined when the pool does not name one. */
  forScenario(scenario: ModelScenario): ResolvedModel | undefined;
}

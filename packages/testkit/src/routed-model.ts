import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";

export interface RoutedModelOptions {
  /** Names the model that answers a call, from its prompt (see `taskOf`). */
  route: (prompt: LanguageModelV4Prompt) => string;
  /** The models by route name; usually one `scriptedModel` per agent or sub-agent. */
  models: Readonly<Record<string, LanguageModelV4>>;
  /** Default `routed`. */
  modelId?: string;
  /** Default `testkit`. */
  provider?: string;
}

const REMINDER = /^<system-reminder>/;

/**
 * The text of the last user message that is not a system reminder: a sub-agent's task, or the
 * main agent's latest prompt. Routes parallel sub-agents to their own scripts deterministically,
 * whatever order their calls arrive in.
 */
export function taskOf(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== "user") continue;
    const text = message.content
      .map((p) => (p.type === "text" && !REMINDER.test(p.text) ? p.text : ""))
      .join("")
      .trim();
    if (text) return text;
  }
  return "";
}

/**
 * A model that hands each call to one of several models chosen from the prompt: concurrent
 * conversations (explore branches) each play their own script, so tests stay deterministic.
 */
export function routedModel(options: RoutedModelOptions): LanguageModelV4 {
  const pick = (call: LanguageModelV4CallOptions): LanguageModelV4 => {
    const name = options.route(call.prompt);
    const model = options.models[name];
    if (!model) {
      throw new Error(`routedModel: no model for route "${name}"; routes: ${Object.keys(options.models).join(", ")}`);
    }
    return model;
  };
  return {
    specificationVersion: "v4",
    provider: options.provider ?? "testkit",
    modelId: options.modelId ?? "routed",
    supportedUrls: {},
    doStream: (call: LanguageModelV4CallOptions): PromiseLike<LanguageModelV4StreamResult> => pick(call).doStream(call),
    doGenerate: (call: LanguageModelV4CallOptions): PromiseLike<LanguageModelV4GenerateResult> => pick(call).doGenerate(call),
  };
}

/**
 * The main agent's model, with a model of its own for each sub-agent task: a call whose task (see
 * `taskOf`) is one of `tasks`' keys goes to that model, every other call to `main`.
 */
export function taskModels(main: LanguageModelV4, tasks: Readonly<Record<string, LanguageModelV4>>): LanguageModelV4 {
  return routedModel({
    route: (prompt) => (Object.hasOwn(tasks, taskOf(prompt)) ? `task:${taskOf(prompt)}` : "main"),
    models: { main, ...Object.fromEntries(Object.entries(tasks).map(([task, model]) => [`task:${task}`, model])) },
  });
}

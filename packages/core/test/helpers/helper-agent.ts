import { scriptedModel, taskModels, text } from "@arbor/testkit";

/**
 * A configured sub-agent, `helper` (grep only), beside a primary agent, `reviewer`: the agents a
 * delegate call or an `@<name>` mention is tried on, by the runtime's tests and over HTTP alike.
 */
export const HELPER_AGENTS = {
  helper: { description: "Greps only", prompt: "You are the helper sub-agent.", mode: "subagent", tools: ["grep"] },
  reviewer: { description: "A primary agent", prompt: "x" },
};

/**
 * The models of `@helper find the config` and then a plain prompt: the helper, handed the task,
 * finds it; the main agent reads its report, then answers the plain prompt.
 */
export function helperMentionModels() {
  const main = scriptedModel([[text("main read the report")], [text("plain answer")]]);
  const helper = scriptedModel([[text("found it")]]);
  return { main, helper, model: taskModels(main, { "find the config": helper }) };
}

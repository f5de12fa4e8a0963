import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";

/**
 * A main agent that plans two goals and, under the first, explores two branches with sub-agents that
 * each answer once: a run with goals and two sub-traces.
 */
export function exploringModel(): ReturnType<typeof routedModel> {
  const main = scriptedModel([
    [toolCall("goal", { add: "Survey, Decide" })],
    [toolCall("goal", { focus: "1" })],
    [toolCall("explore", { branches: ["branch one", "branch two"] })],
    [toolCall("goal", { done: "surveyed", focus: "2" })],
    [text("decided")],
  ]);
  return routedModel({
    route: (prompt) => (taskOf(prompt).startsWith("branch") ? taskOf(prompt) : "main"),
    models: { main, "branch one": scriptedModel([[text("one found")]]), "branch two": scriptedModel([[text("two found")]]) },
  });
}

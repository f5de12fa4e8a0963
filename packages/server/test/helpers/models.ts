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

/** Plan steps' prompts name the step this way; a planning model routes each to the step's own script. */
const STEP = /Now carry out step \d+: (.*)$/;

/**
 * A main agent that makes a plan "Check the repo" of two steps, each carried out by an executor that
 * answers once: a run that waits for the plan's approval when the config asks for it.
 */
export function planningModel(): ReturnType<typeof routedModel> {
  const main = scriptedModel([[toolCall("plan_create", { title: "Check the repo", steps: ["Read the code", "Run the tests"] })]]);
  return routedModel({
    route: (prompt) => STEP.exec(taskOf(prompt))?.[1] ?? "main",
    models: {
      main,
      "Read the code": scriptedModel([[text("The code is fine.")]]),
      "Run the tests": scriptedModel([[text("All tests pass.")]]),
    },
  });
}

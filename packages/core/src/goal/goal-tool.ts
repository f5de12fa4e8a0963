import { z } from "zod";
import { ArborError } from "../errors.js";
import { defineTool, type ToolResult } from "../tools/tool.js";
import { applyGoalCommand } from "./commands.js";
import { createGoalTree, type GoalTree } from "./goal-tree.js";
import { goalsKey } from "./goals-key.js";
import { toPrompt } from "./to-prompt.js";

export const GOAL_TOOL_NAME = "goal";

/**
 * Text the model may also send as a list (`["Read", "Fix"]`) or a bare number (`focus: 2`), as
 * models often do: a list becomes comma-separated text, a number its digits. The advertised schema
 * stays plain text.
 */
const optionalText = (description: string) =>
  z.preprocess(
    (value) =>
      Array.isArray(value) && value.every((item) => typeof item === "string" || typeof item === "number")
        ? value.join(", ")
        : typeof value === "number"
          ? String(value)
          : value,
    z
      .string({
        error: (issue) =>
          issue.input === undefined ? undefined : 'expected text (a string), e.g. "2.1" or "Read the code, Fix the bug"',
      })
      .optional()
      .describe(description),
  );

/** `goal(add, reason, after, under, done, abandon, focus)`; every parameter optional, so one call can do several things. */
export const GoalToolInputSchema = z.strictObject({
  add: optionalText('New goals, comma-separated, e.g. "Read the parser, Fix the bug, Run the tests".'),
  reason: optionalText(
    'Why each new goal is needed: one per goal in add, comma-separated in the same order, e.g. "find the cause, make it pass, catch regressions".',
  ),
  after: optionalText('Put the new goals right after this goal, at its level, e.g. "2.2".'),
  under: optionalText('Put the new goals at the end of this goal\'s subtasks, e.g. "2". Not together with after.'),
  done: optionalText("Complete the goal in focus. The value is its summary: what was achieved or found."),
  abandon: optionalText("Give up the goal in focus. The value is the reason."),
  focus: optionalText('Start or switch to this goal, e.g. "2.1".'),
  edit: optionalText('Reword this pending goal, e.g. "2.1"; the new text goes in to.'),
  to: optionalText("The new text of the goal edit names."),
  remove: optionalText('Remove these pending goals with their subtasks, comma-separated numbers, e.g. "3, 4".'),
});

export type GoalToolInput = z.infer<typeof GoalToolInputSchema>;

export const GOAL_TOOL_DESCRIPTION = [
  'Keep the plan for this task as a tree of goals. The plan is shown under "## Current Plan" (at the end of the system',
  'prompt and in this tool\'s result); refer to goals by the numbers shown there ("2", "2.1"). Abandoned goals leave the',
  "plan and the others are renumbered, so always use the latest numbers.",
  "",
  "Parameters, all optional; combine them in one call when it fits:",
  '- add: new goals, comma-separated. add="Read the code, Fix the bug, Run the tests"',
  '- reason: why each new goal is needed, one per goal in add, same order. reason="find the cause, make the test pass, catch regressions"',
  '- after: put the new goals right after goal N, at the same level. add="Review the change", after="2.2"',
  '- under: put the new goals at the end of goal N\'s subtasks (to break a goal down). add="Design the API, Write the code", under="2"',
  "  Without after or under, new goals go under the goal in focus, or at the top level when nothing is in focus.",
  "  after and under cannot be combined.",
  '- focus: start or switch to goal N; it is marked [→] and "← current". focus="2.1"',
  '- done: complete the goal in focus; the value is its summary, what was achieved or found. done="Login endpoint in api/login.ts, tests pass"',
  "  When every subtask of a goal is done, that goal completes too.",
  '- abandon: give up the goal in focus; the value is why. abandon="Approach A needs a library we cannot install"',
  "  It leaves the plan. To replace it, add the alternative in the same call, where its number still counts:",
  '  goal(abandon="Approach A needs a library we cannot install", add="Try approach B", after="2")',
  '- edit: reword a pending goal (not started, no work under it); the new text goes in to. edit="2.1", to="Read the parser and the lexer"',
  '- to: the new text of the goal edit names, only together with edit. to="Read the parser and the lexer"',
  '- remove: drop pending goals with their subtasks (not started, no work under them). remove="3, 4"',
  "  A goal already started is given up with abandon instead.",
  "",
  "In one call edit/remove apply first, then done/abandon, then add, then focus, and every number means the plan as shown before the call;",
  'focus may also name a goal the same call adds, by its new number or its text: goal(add="Read the code, Fix the bug", focus="1").',
  'Example: goal(done="API designed: REST, see api.md", focus="2.2").',
].join("\n");

/** The new tree rides on the result so the session tree records the plan as of every change. */
export type GoalToolMetadata = { goalTree: GoalTree; affectedGoals: string[]; addedGoals: string[] };
export type GoalToolResult = ToolResult<GoalToolMetadata>;

/**
 * Where the tool reads and writes each session's tree. The loop backs it with the session tree
 * (the tree at a leaf is the latest `goalTree` on its path); tests back it with a map.
 */
export interface GoalTreeAccess {
  get(sessionId: string): Promise<GoalTree>;
  /** Called only when the call changed the tree, with the result the model is about to see. */
  set(sessionId: string, tree: GoalTree, result: GoalToolResult): Promise<void>;
}

export interface GoalToolOptions {
  /** ISO timestamp for goals created or changed by a call; the wall clock by default. */
  now?: () => string;
}

/**
 * The `goal` tool: applies the call to the session's tree and answers with what changed and the new
 * plan. Without `access` it works on the run's tree (its `goalsKey` slot), as the goal feature offers it.
 */
export function defineGoalTool(access?: GoalTreeAccess, options: GoalToolOptions = {}) {
  const now = options.now ?? (() => new Date().toISOString());
  return defineTool<typeof GoalToolInputSchema, GoalToolMetadata>({
    name: GOAL_TOOL_NAME,
    // A goal added twice is two goals.
    effects: "at-most-once",
    description: GOAL_TOOL_DESCRIPTION,
    input: GoalToolInputSchema,
    async execute(input, ctx) {
      const run = ctx.run?.get(goalsKey);
      if (!access && !run) throw new ArborError("invalid_input", "The goal tool keeps a run's plan; it only works inside a run.");
      const tree = access ? await access.get(ctx.sessionId) : (run!.get() ?? createGoalTree(run!.mission));
      const change = applyGoalCommand(tree, input, now());
      const result: GoalToolResult = {
        output: `${change.message}\n\n${toPrompt(change.tree)}`,
        title: change.message.split("\n")[0] ?? "",
        metadata: { goalTree: change.tree, affectedGoals: change.affectedGoals, addedGoals: change.addedGoals },
      };
      if (change.tree === tree) return result;
      if (access) await access.set(ctx.sessionId, change.tree, result);
      else run!.set(change.tree, change);
      return result;
    },
  });
}

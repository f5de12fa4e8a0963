import { runKey } from "../tools/run-values.js";
import type { GoalTree } from "./goal-tree.js";

/** The run's goal tree: the latest on the session's active path, changed as the run goes. */
export interface RunGoals {
  get(): GoalTree | undefined;
  /** The task as the user gave it, the mission of a tree the run starts. */
  readonly mission: string;
  /**
   * Makes `tree` the run's tree. `added` are the goals the change added (an abandoned goal's
   * replacements among them); the goal feature publishes the change and collapses closed goals' messages.
   */
  set(tree: GoalTree, change: { affectedGoals: readonly string[]; addedGoals: readonly string[] }): void;
}

/** The run's goal tree, set by the goal feature for `goal`, the sub-agent tools and plan mode. */
export const goalsKey = runKey<RunGoals>("goals");

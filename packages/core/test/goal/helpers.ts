import { applyGoalCommand, type GoalCommand } from "../../src/goal/commands.js";
import { createGoalTree, type GoalTree } from "../../src/goal/goal-tree.js";

export const NOW = "2026-02-04T22:00:12.000Z";

/** Applies the calls in order, as a model would make them one after another. */
export function play(tree: GoalTree, ...commands: GoalCommand[]): GoalTree {
  return commands.reduce((current, command) => applyGoalCommand(current, command, NOW).tree, tree);
}

export function planOf(mission: string, ...commands: GoalCommand[]): GoalTree {
  return play(createGoalTree(mission), ...commands);
}

/** The goal lines of a rendered plan: everything after "**Progress**:". */
export function progressLines(prompt: string): string[] {
  const lines = prompt.split("\n");
  return lines.slice(lines.indexOf("**Progress**:") + 1);
}

/** Freezes every object and array reachable from `value`, so any mutation throws (test files are strict mode). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Runs `fn` expecting an `invalid_input` ArborError; returns its message for further checks. */
export function invalidInputMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    const error = err as { code?: string; message?: string };
    if (error.code !== "invalid_input") throw err;
    return error.message ?? "";
  }
  throw new Error("expected an invalid_input ArborError, but the call succeeded");
}

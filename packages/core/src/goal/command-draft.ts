import { ArborError } from "../errors.js";
import { emptyGoalStats, type Goal, type GoalTree } from "./goal-tree.js";
import { descendantIds } from "./tree-walk.js";

/** A `goal` call the model got wrong: the message says how to write it instead. */
export function fail(message: string, details?: Record<string, unknown>): never {
  throw new ArborError("invalid_input", message, details);
}

/** Copy-on-write working state: goals are replaced, never edited, so the input tree stays intact. */
export class Draft {
  goals: Goal[];
  currentId: string | null;
  private nextId: number;
  private readonly affected = new Set<string>();
  private readonly added: string[] = [];

  constructor(
    private readonly tree: GoalTree,
    private readonly now: string,
  ) {
    this.goals = [...tree.goals];
    this.currentId = tree.currentId;
    this.nextId = tree.nextId;
  }

  get(id: string): Goal {
    const goal = this.goals.find((g) => g.id === id);
    if (!goal) fail(`Goal id ${id} is not in the goal tree.`);
    return goal;
  }

  indexOf(id: string): number {
    return this.goals.findIndex((g) => g.id === id);
  }

  patch(id: string, fields: Pick<Partial<Goal>, "status" | "summary">): void {
    const index = this.indexOf(id);
    this.goals[index] = { ...this.get(id), ...fields, updatedAt: this.now };
    if (!this.added.includes(id)) this.affected.add(id);
  }

  /** A new description for a goal that existed before the call. */
  reword(id: string, description: string): void {
    this.goals[this.indexOf(id)] = { ...this.get(id), description, updatedAt: this.now };
    if (!this.added.includes(id)) this.affected.add(id);
  }

  /** Takes goals out of the tree (the caller checked they may go: pending, untouched, whole subtrees). */
  remove(ids: ReadonlySet<string>): void {
    this.goals = this.goals.filter((goal) => !ids.has(goal.id));
    for (const id of ids) this.affected.add(id);
  }

  create(parentId: string | null, description: string, reason: string): Goal {
    const id = String(this.nextId++);
    this.added.push(id);
    return {
      id,
      parentId,
      type: "normal",
      description,
      reason,
      status: "pending",
      selfStats: emptyGoalStats(),
      cumulativeStats: emptyGoalStats(),
      createdAt: this.now,
      updatedAt: this.now,
    };
  }

  /** Index just past the last goal of `id`'s subtree (the end of the list for the top level). */
  endOfSubtree(id: string | null): number {
    if (id === null) return this.goals.length;
    const members = new Set([id, ...descendantIds(this.goals, id)]);
    let end = this.indexOf(id) + 1;
    this.goals.forEach((goal, index) => {
      if (members.has(goal.id)) end = Math.max(end, index + 1);
    });
    return end;
  }

  /** Whether this call already changed the goal (so an error can say "by this call"). */
  changed(id: string): boolean {
    return this.affected.has(id);
  }

  affectedIds(): string[] {
    return [...this.affected];
  }

  addedIds(): string[] {
    return [...this.added];
  }

  finish(): GoalTree {
    return { ...this.tree, currentId: this.currentId, goals: this.goals, nextId: this.nextId };
  }
}

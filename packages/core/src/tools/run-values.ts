/**
 * A typed slot of one run's state, declared by the feature that owns it
 * (`export const goalsKey = runKey<RunGoals>("goals")`): the loop and the tools' context carry the
 * slots without knowing any feature, and only code that imports a key can read what it holds.
 */
export interface RunKey<T> {
  readonly name: string;
  /** Never set: carries `T` so `get` and `set` are typed by the key. */
  readonly __value?: T;
}

export function runKey<T>(name: string): RunKey<T> {
  return { name };
}

/**
 * What the features of one run keep for its tools, by key: a feature's extension sets its slot in
 * `start`, its tools read it from `ToolContext.run`. One per run, so runs never share a slot; keys
 * are compared by identity, so two features never collide even under one name.
 */
export class RunValues {
  private readonly values = new Map<RunKey<unknown>, unknown>();

  get<T>(key: RunKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: RunKey<T>, value: T): void {
    this.values.set(key, value);
  }
}

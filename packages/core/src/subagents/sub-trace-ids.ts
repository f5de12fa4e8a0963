import { subTraceId } from "../model/ids.js";

/**
 * Hands out sub-trace ids, readable and sortable by time: `seq` counts up within one parent, mode and second. Owned by a
 * runtime (never module state); only the current second's counters are kept, so it stays small.
 */
export class SubTraceIds {
  private second = "";
  private readonly counters = new Map<string, number>();

  next(parentId: string, mode: string, at: Date): string {
    const second = at.toISOString().slice(0, 19);
    if (second !== this.second) {
      this.second = second;
      this.counters.clear();
    }
    const key = `${parentId}@${mode}`;
    const seq = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, seq);
    return subTraceId(parentId, mode, at, seq);
  }
}

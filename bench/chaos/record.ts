/** What a chaos trial is and what it records: shared by the cluster trials and the local `arbor run` ones. */

export const KINDS = ["run", "run-file", "run-sqlite", "instance", "watcher", "backend", "netcut"] as const;
/** "none": no fault at all (the self-check's control and plant trials). */
export type Kind = (typeof KINDS)[number] | "none";

export const VIOLATIONS = [
  "lost",
  "duplicated",
  "outOfOrder",
  "effectTwice",
  "askTwice",
  "stuck",
  "unusable",
  "unpaired",
] as const;
export type Violation = (typeof VIOLATIONS)[number];

export interface TrialRecord {
  trial: number;
  kind: Kind;
  ask: boolean;
  tag: string;
  sessionId?: string;
  /** When the fault came after the run had ended (it then tested nothing but the follow-up). */
  missed: boolean;
  /** From the fault to the watcher's first event written after it (a new driver's, for kills of the driver). */
  recoveryMs?: number;
  violations: Record<Violation, number>;
  notes: string[];
  /** Milliseconds from the trial's start to the end of each phase. */
  phases: Record<string, number>;
  ms: number;
}

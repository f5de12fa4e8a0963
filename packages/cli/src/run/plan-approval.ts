import type { Io } from "../io.js";
import type { RunView } from "../render/live.js";
import { oneLine } from "../render/text.js";
import { type Prompt, terminalAnswerer } from "./answerer.js";

/** What the CLI needs of a plan waiting for approval; the runtime's `PlanApprovalRequest` has it. */
export interface PlanAsk {
  planId: string;
  title: string;
  steps: readonly { id: number; title: string }[];
}

export interface PlanReply {
  approved: boolean;
  reason?: string;
}

/** The runtime's `onPlanApproval` as the CLI answers it. */
export type PlanApprovalHandler = (request: PlanAsk, signal: AbortSignal) => Promise<PlanReply | undefined>;

const ANSWERS: Readonly<Record<string, boolean>> = { y: true, yes: true, n: false, no: false };

/** Unclear answers are asked again this many times, then the plan is not approved. */
const MAX_QUESTIONS = 3;

async function askPerson(prompt: Prompt, request: PlanAsk, signal: AbortSignal): Promise<PlanReply> {
  const question = `? run the plan "${oneLine(request.title)}" (${request.steps.length} step${request.steps.length === 1 ? "" : "s"})? [y]es / [n]o: `;
  for (let i = 0; i < MAX_QUESTIONS; i++) {
    const answer = await prompt(question, signal);
    if (answer === undefined || signal.aborted) return { approved: false, reason: "the approval prompt was closed" };
    const approved = ANSWERS[answer.trim().toLowerCase()];
    if (approved === true) return { approved };
    if (approved === false) {
      const reason = (await prompt("  why not? (optional): ", signal))?.trim();
      return reason ? { approved, reason } : { approved };
    }
  }
  return { approved: false, reason: "no clear answer" };
}

/** Who approves plans (PLAN_REQUIRE_APPROVAL) for `arbor run` (see `terminalAnswerer`): `--yes` approves; nobody leaves the plan for 'arbor approve'. */
export function createPlanApprovalHandler(opts: {
  yes: boolean;
  io: Io;
  view: RunView;
  onNobody: (request: PlanAsk) => void;
}): PlanApprovalHandler {
  return terminalAnswerer<PlanAsk, PlanReply>({
    ...opts,
    yes: () => (opts.yes ? { approved: true, reason: "--yes" } : undefined),
    person: askPerson,
  });
}

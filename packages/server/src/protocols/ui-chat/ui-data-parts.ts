import {
  ElicitationAnsweredEventSchema,
  ElicitationRequestEventSchema,
  GoalAddedEventSchema,
  GoalUpdatedEventSchema,
  LlmEndEventSchema,
  PlanApprovalRequestEventSchema,
  PlanCreatedEventSchema,
  PlanRevisedEventSchema,
  PlanUpdatedEventSchema,
  QuestionRequestEventSchema,
  SubTraceCompletedEventSchema,
  SubTraceStartedEventSchema,
  ToolProgressEventSchema,
} from "@arbor/core/wire";
import { z } from "zod";

/** A run event's fields without its discriminator and session (the part's type and the chat id say those). */
const ofRun = { type: true, session_id: true } as const;
/** A trace watch event's fields without its discriminator and log position (the stream's metadata carries that). */
const ofWatch = { event: true, event_id: true, timestamp: true } as const;

/**
 * The data of every `data-<key>` part Arbor streams to a `useChat` client, as zod schemas. A client
 * passes this map as `useChat`'s `dataPartSchemas` (or `validateUIMessages`' `dataSchemas`) to have
 * the parts checked, and the server's chunk types are inferred from it, so both read one definition.
 */
export const arborDataPartSchemas = {
  "plan-created": PlanCreatedEventSchema.omit(ofRun),
  "plan-updated": PlanUpdatedEventSchema.omit(ofRun),
  "plan-revised": PlanRevisedEventSchema.omit(ofRun),
  "plan-approval-request": PlanApprovalRequestEventSchema.omit(ofRun),
  /**
   * The agent asked a question (the question tool). A tool approval takes only yes or no, so the
   * answer goes to `POST /api/asks/:id` (its `id`); the run waits for it.
   */
  question: QuestionRequestEventSchema.omit(ofRun),
  /**
   * An MCP server asked the person for input during a tool call (a form, a page to open, a login).
   * No UI part carries the answer, so it goes to `POST /api/asks/:id` (its `id`); the call waits.
   * The part is sent again, with the same id, once the elicitation ended: `action` says how.
   */
  elicitation: ElicitationRequestEventSchema.omit(ofRun).extend({
    action: ElicitationAnsweredEventSchema.shape.action.optional(),
  }),
  "tool-progress": ToolProgressEventSchema.omit(ofRun),
  "model-call": LlmEndEventSchema.omit({ ...ofRun, input: true, output: true }),
  /** A goal added to the goal tree of the run or of one of its sub-agents (`trace_id` says which). */
  "goal-added": GoalAddedEventSchema.omit(ofWatch),
  /** A goal's status, summary or stats changed, with the ancestors whose totals changed with it. */
  "goal-updated": GoalUpdatedEventSchema.omit(ofWatch),
  /** A sub-agent (an explore branch, a delegate) started its own trace; `trace_id` is the sub-trace's session id. */
  "sub-agent-started": SubTraceStartedEventSchema.omit(ofWatch),
  /** A sub-agent's trace ended, with its summary and totals. */
  "sub-agent-completed": SubTraceCompletedEventSchema.omit(ofWatch),
  /** The context was summarized to fit the model: `running` while the summary is written, then `done`. */
  compaction: z.object({
    status: z.enum(["running", "done"]),
    call_id: z.string(),
    model: z.string(),
    duration_ms: z.number().int().nonnegative().optional(),
    input_tokens: z.number().int().nonnegative().optional(),
    output_tokens: z.number().int().nonnegative().optional(),
  }),
  /**
   * The session's leaf moved before this run: a regenerated answer branches from the user message it
   * answers (`from_entry_id`), leaving the old answer on a sibling branch.
   */
  branch: z.object({
    reason: z.literal("regenerate"),
    from_entry_id: z.string(),
    previous_leaf_entry_id: z.string().nullable(),
  }),
};

export type ArborDataParts = { [K in keyof typeof arborDataPartSchemas]: z.output<(typeof arborDataPartSchemas)[K]> };

import { QuestionInputSchema } from "@arbor/core/session";
import { z } from "zod";
import { PermissionResponse } from "./schemas.js";

/** The id of any ask (`perm_…`, `plan_…`, `question_…`), as `GET /api/asks` lists it. */
export const AskParams = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, "Ask id is not valid: expected the id GET /api/asks lists (perm_…, plan_…, question_…).")
    .describe("The ask's id, as `GET /api/asks` and the run's `*_request` event give it."),
});

const common = {
  id: z.string(),
  session_id: z.string(),
  created_at: z.string(),
  expires_at: z.string().describe("Unanswered by then, the ask is refused and its run told so."),
};

const McpLoginAskResponse = z.object({
  kind: z.literal("mcp_login"),
  ...common,
  mcp_login: z.object({
    server: z.string().describe("The MCP server that wants the login."),
    call_id: z.string().optional().describe("The tool call waiting for it; none when the run needs the server's tools to start."),
    url: z
      .string()
      .describe(
        "The authorization server's login page (PKCE): open it in a browser; its answer comes back to GET /api/mcp/oauth/callback, which finishes the login and answers this ask.",
      ),
    message: z.string(),
  }),
});

export const PendingAskResponse = z.discriminatedUnion("kind", [
  McpLoginAskResponse,
  z.object({ kind: z.literal("permission"), ...common, permission: PermissionResponse }),
  z.object({
    kind: z.literal("plan"),
    ...common,
    plan: z.object({
      plan_id: z.string(),
      title: z.string(),
      steps: z.array(z.object({ id: z.number(), title: z.string(), status: z.string() })),
    }),
  }),
  z.object({
    kind: z.literal("question"),
    ...common,
    question: QuestionInputSchema.extend({ agent: z.string(), call_id: z.string().optional() }),
  }),
  z.object({
    kind: z.literal("elicitation"),
    ...common,
    elicitation: z.object({
      server: z.string(),
      call_id: z.string().optional(),
      mode: z.enum(["form", "url"]).describe("form: fields to fill in; url: a page of the server's to open (accept or decline)."),
      message: z.string(),
      requested_schema: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("Form mode: the form, as the MCP server sent it (a flat JSON Schema)."),
      url: z.string().optional().describe("URL mode: the page to open; what is typed there goes to the server, not to Arbor."),
      elicitation_id: z.string().optional().describe("URL mode: the server's id of the elicitation."),
    }),
  }),
]);

export const AskListResponse = z.object({ asks: z.array(PendingAskResponse) });

export const AnswerAskRequest = z
  .strictObject({
    answers: z
      .array(z.string().min(1).max(4000))
      .min(1)
      .max(20)
      .optional()
      .describe("A question's answer: the chosen option labels (several only when it allows) or the person's own words."),
    allow: z
      .boolean()
      .optional()
      .describe("A permission allowed once or rejected, a plan approved or rejected; false dismisses a question."),
    message: z.string().max(10_000).optional().describe("With a refusal or dismissal: why, as the model reads it."),
    content: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("An MCP server's elicitation accepted: the form's fields (those left out take its defaults)."),
  })
  .refine((b) => b.answers !== undefined || b.allow !== undefined, "Give answers (a question) or allow (true or false).")
  .refine((b) => !(b.answers !== undefined && b.allow === false), "answers go with an answer, not with allow: false.");

export const AnswerAskResponse = z.object({
  id: z.string(),
  kind: z.enum(["permission", "plan", "question", "elicitation", "mcp_login"]),
  session_id: z.string(),
  /** The run started to carry a plan on when no run waited for it. */
  resumed_session: z.string().nullable(),
});

import { z } from "zod";

/**
 * The gateway's rules are data: each has an id (named in every decision, and how a user turns a
 * built-in one off), what it matches and why that is refused. Three kinds:
 * - `command`: a regular expression over each simple command of a shell line (and the whole line);
 *   a match blocks the call.
 * - `secret`: a regular expression whose matches are redacted from tool arguments and outputs.
 * - `injection`: a regular expression that marks fetched content as trying to instruct the model.
 * The checks that need the shell's structure (recursive deletes, downloads piped to a shell,
 * writes outside the workspace) are code, but have ids too, listed in STRUCTURAL_RULES.
 */
export const SecurityRuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "a rule id is lower-case letters, digits and dashes"),
  kind: z.enum(["command", "secret", "injection"]),
  pattern: z.string().min(1),
  /** Regular-expression flags besides `g`; `i` by default. */
  flags: z
    .string()
    .regex(/^[imsu]*$/)
    .default("i"),
  reason: z.string().min(1),
});

export type SecurityRule = z.output<typeof SecurityRuleSchema>;

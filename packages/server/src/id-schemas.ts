import { EntryIdSchema, SessionIdSchema } from "@arbor/core";
import { assertEntryId, assertSessionId } from "@arbor/core/wire";
import { z } from "zod";

/**
 * An id checked by core's own assertion, so a bad id gets core's actionable message, while the
 * document still shows core's pattern.
 */
function idSchema(assert: (value: unknown) => void, pattern: z.ZodString, description: string) {
  const { pattern: regex } = z.toJSONSchema(pattern) as { pattern?: string };
  return z
    .string()
    .check((ctx) => {
      try {
        assert(ctx.value);
      } catch (err) {
        ctx.issues.push({ code: "custom", message: (err as Error).message, input: ctx.value });
      }
    })
    .meta({ pattern: regex, description });
}

export const SessionId = idSchema(assertSessionId, SessionIdSchema, "A session id.");
export const EntryId = idSchema(assertEntryId, EntryIdSchema, "An entry id within the session.");

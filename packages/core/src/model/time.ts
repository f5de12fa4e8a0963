import { z } from "zod";

/** ISO-8601 UTC with milliseconds, exactly as `Date.prototype.toISOString` writes it. */
export const TimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, "expected an ISO-8601 UTC timestamp with milliseconds");

import { z } from "zod";

/** A JSON column: the database holds text, the row dumps hold the parsed value. */
const jsonColumn = z.preprocess((v) => {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}, z.unknown());

/** One `session_v2` row of OpenCode 2.x (loose: only what Arbor reads is checked). */
export const OpenCodeSessionRowSchema = z.looseObject({
  id: z.string().min(1),
  parent_id: z.string().nullable().optional(),
  directory: z.string().optional(),
  title: z.string().nullable().optional(),
  version: z.string().optional(),
  model: jsonColumn.optional(),
  time_created: z.number(),
  time_updated: z.number().optional(),
});

export const OpenCodeMessageRowSchema = z.looseObject({
  id: z.string().min(1),
  session_id: z.string().min(1),
  type: z.string(),
  seq: z.number(),
  time_created: z.number(),
  data: jsonColumn,
});

const ToolState = z.looseObject({
  status: z.string().optional(),
  input: z.unknown().optional(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  metadata: z.unknown().optional(),
});

export const OpenCodePartSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("reasoning"), text: z.string() }),
  z.looseObject({ type: z.literal("tool"), id: z.string().min(1), name: z.string().min(1), state: ToolState }),
]);

export const OpenCodeAssistantSchema = z.looseObject({
  content: z.array(z.unknown()),
  model: z.looseObject({ id: z.string(), providerID: z.string() }).optional(),
  finish: z.string().optional(),
  cost: z.number().optional(),
  error: z.unknown().optional(),
  tokens: z
    .looseObject({
      input: z.number().optional(),
      output: z.number().optional(),
      reasoning: z.number().optional(),
      cache: z.looseObject({ read: z.number().optional(), write: z.number().optional() }).optional(),
    })
    .optional(),
});

export const OpenCodeUserSchema = z.looseObject({
  text: z.string().optional(),
  files: z
    .array(z.looseObject({ mime: z.string().optional(), url: z.string().optional(), filename: z.string().optional() }))
    .optional(),
});

export type OpenCodeSessionRow = z.infer<typeof OpenCodeSessionRowSchema>;
export type OpenCodeMessageRow = z.infer<typeof OpenCodeMessageRowSchema>;

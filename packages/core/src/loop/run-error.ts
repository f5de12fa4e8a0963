import { z } from "zod";

/**
 * `customType` of the entry a run writes when the model call failed before anything was streamed,
 * so the session says why it stopped. Sessions written before the `arbor.` namespace name it
 * `run_error`; the file store reads those as this type.
 */
export const RUN_ERROR_ENTRY_TYPE = "arbor.run_error";

export const RunErrorDataSchema = z.looseObject({
  code: z.string().min(1),
  message: z.string(),
  /** `provider/model` of the call that failed. */
  model: z.string().optional(),
});
export type RunErrorData = z.infer<typeof RunErrorDataSchema>;

/**
 * A running tool's progress report. The loop sends each to clients as a `tool_progress` event (with
 * `metadata` and `live` merged); the last `metadata` reported is kept in the result's metadata, under
 * the keys the result does not set itself. `live` is shown and never stored (bash's output so far,
 * which the result holds anyway).
 */
export interface ToolProgress {
  title?: string;
  metadata?: Record<string, unknown>;
  live?: Record<string, unknown>;
}

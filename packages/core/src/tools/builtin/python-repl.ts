import { z } from "zod";
import { ArborError } from "../../errors.js";
import { fitText } from "../../model/text.js";
import type { PythonRepls } from "../python/python-repls.js";
import { defineTool } from "../tool.js";

export interface PythonReplToolOptions {
  repls: PythonRepls;
  /** Used when the call gives no timeout. Default 60 s. */
  defaultTimeoutMs?: number;
  /** The largest timeout a call may ask for. Default 10 minutes. */
  maxTimeoutMs?: number;
}

export const PythonReplInputSchema = z.strictObject({
  code: z.string().min(1).describe("Python code to run. A last expression's value is printed, as in an interactive session."),
  timeout: z.number().int().positive().optional().describe("Timeout in milliseconds (default 60000)."),
});

/**
 * A stateful Python session per run: variables, imports and functions defined in one call are
 * there in the next. Runs the system's `python3` in the workspace; asks permission like `bash`
 * (permission `python_repl`, matched against the code).
 */
export function pythonReplTool(options: PythonReplToolOptions) {
  const defaultTimeout = options.defaultTimeoutMs ?? 60_000;
  const maxTimeout = options.maxTimeoutMs ?? 600_000;
  return defineTool({
    name: "python_repl",
    // Code in a live interpreter can do anything, and its state moves on.
    effects: "at-most-once",
    description:
      "Run Python code in a persistent session (variables survive between calls during this run) and return what it printed " +
      `and the value of a last expression. Default timeout ${defaultTimeout} ms; a call past it is interrupted. ` +
      "Use it for calculations and data work; use bash for shell commands.",
    input: PythonReplInputSchema,
    async execute(input, ctx) {
      if (input.timeout !== undefined && input.timeout > maxTimeout) {
        throw new ArborError("invalid_tool_input", `timeout ${input.timeout} ms is over the limit of ${maxTimeout} ms.`);
      }
      await ctx.ask({ permission: "python_repl", patterns: [input.code], always: ["*"], metadata: { code: input.code } });
      if (ctx.abort.aborted) throw new ArborError("aborted", "The code was aborted before it ran.");
      const timeout = input.timeout ?? defaultTimeout;
      const run = await options.repls.run(ctx.sessionId, ctx.cwd, input.code, timeout, ctx.abort, ctx.agent);
      const notes: string[] = [...(run.notes ?? [])];
      if (run.restarted)
        notes.push(`[A new Python session was started because ${run.restarted}: variables from earlier calls are gone.]`);
      let output = run.output.trimEnd();
      if (run.droppedChars > 0) output += `\n[${run.droppedChars} more characters of output were dropped.]`;
      const body = [...notes, output.length > 0 ? output : run.error ? "" : "(no output)"].filter((s) => s !== "").join("\n");
      if (run.ended === "aborted") throw new ArborError("aborted", `${body}\n[Interrupted: the run was aborted.]`.trim());
      if (run.ended === "crashed") {
        throw new ArborError(
          "tool_failed",
          `${body}\n[The Python process died while running this code; the next call starts a new session, so variables from earlier calls are gone.]`.trim(),
        );
      }
      if (run.ended === "timeout" || run.error !== undefined) {
        const timedOut = run.ended === "timeout" ? `\n[Timed out after ${timeout} ms and interrupted.]` : "";
        throw new ArborError("tool_failed", `${body}\n${(run.error ?? "").trimEnd()}${timedOut}`.trim());
      }
      return { output: body, title: firstLine(input.code) };
    },
  });
}

function firstLine(code: string): string {
  const line = code.trim().split("\n")[0] ?? "";
  return fitText(line, 80);
}

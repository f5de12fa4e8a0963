import { type AnyToolDefinition, ArborError } from "@arbor/core";
import { z } from "zod";

/** The `tool_progress` metadata a client tool reports when it starts waiting: the response pauses there. */
export const AWAITING_CLIENT = "client_output";

/** How long a call waits for its output before the model is told the client gave none. */
export const DEFAULT_CLIENT_WAIT_MS = 10 * 60_000;

interface Waiting {
  resolve(output: string): void;
}

/**
 * The function calls runs of this server wait on, keyed by session and call id. A function tool the
 * client defines runs as a tool of the run (so Arbor's loop, permissions and journal treat it like any
 * other) whose result comes from the client's next request: `execute` reports that it waits, the
 * response ends with the `function_call`, and the `function_call_output` of the request that
 * continues it resolves the wait. Held per mounted protocol, never module-wide.
 */
export class ClientCalls {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly waitMs = DEFAULT_CLIENT_WAIT_MS) {}

  private static key(sessionId: string, callId: string): string {
    return `${sessionId}\n${callId}`;
  }

  isWaiting(sessionId: string, callId: string): boolean {
    return this.waiting.has(ClientCalls.key(sessionId, callId));
  }

  /** Hands the client's output to the call waiting for it; false when none waits. */
  answer(sessionId: string, callId: string, output: string): boolean {
    const key = ClientCalls.key(sessionId, callId);
    const waiting = this.waiting.get(key);
    if (!waiting) return false;
    this.waiting.delete(key);
    waiting.resolve(output);
    return true;
  }

  /** Ends every wait: the calls' runs go on, told the client gave no output (the server is closing). */
  close(): void {
    for (const [key, waiting] of this.waiting) {
      this.waiting.delete(key);
      waiting.resolve("The client gave no output for this call: the server closed.");
    }
  }

  /** A run tool for one client-defined function: it waits for the output the client sends. */
  tool(fn: { name: string; description?: string | null; parameters?: Record<string, unknown> | null }): AnyToolDefinition {
    return {
      name: fn.name,
      description: fn.description ?? `The client's ${fn.name} function.`,
      // The client validates its own arguments; the model is shown the client's schema.
      input: z.unknown(),
      inputSchema: fn.parameters ?? { type: "object", properties: {} },
      // The client may have acted on the call before a crash: never run it twice.
      effects: "at-most-once",
      execute: (_input, ctx) =>
        new Promise((resolve, reject) => {
          const key = ClientCalls.key(ctx.sessionId, ctx.callId);
          const done = () => {
            clearTimeout(timer);
            ctx.abort.removeEventListener("abort", onAbort);
            this.waiting.delete(key);
          };
          const timer = setTimeout(() => {
            done();
            resolve({ output: `The client gave no output for this call within ${Math.round(this.waitMs / 1000)} seconds.` });
          }, this.waitMs);
          const onAbort = () => {
            done();
            reject(new ArborError("aborted", "The run was aborted while waiting for the client's function output."));
          };
          ctx.abort.addEventListener("abort", onAbort, { once: true });
          this.waiting.set(key, {
            resolve: (output) => {
              done();
              resolve({ output, metadata: { client_tool: true } });
            },
          });
          // Told after the wait is registered, so a client that reads this can answer at once.
          ctx.metadata({ metadata: { awaiting: AWAITING_CLIENT } });
        }),
    };
  }
}

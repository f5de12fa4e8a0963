import { z } from "zod";
import { ArborError } from "../errors.js";
import type { RunExtension } from "../loop/run-context.js";
import { runKey } from "../tools/run-values.js";
import type { AnyToolDefinition } from "../tools/tool.js";
import type { ClientFunction, ClientFunctionAsks } from "./client-function-asks.js";

/** The `tool_progress` metadata a client function's call reports once it waits: a front door pauses its answer there. */
export const AWAITING_CLIENT = "client_output";

/** What a run offers its client functions' calls: waiting on the call's durable ask. */
export interface RunClientFunctions {
  wait(
    call: { callId: string; name: string; functions: ClientFunction[] },
    signal: AbortSignal,
    onWaiting: () => void,
  ): ReturnType<ClientFunctionAsks["wait"]>;
}

export const clientFunctionsKey = runKey<RunClientFunctions>("client-functions");

/**
 * A run tool for one function the client defines: the call waits as an ask of kind `function` until
 * the client's output is recorded on it (from any process). The client runs the function, never the
 * server, so taking the call up again after a restart only waits again on the same record (`none`).
 * `functions`: all of the run's client functions, kept with the call for a run that takes it up.
 */
export function clientFunctionTool(fn: ClientFunction, functions: readonly ClientFunction[]): AnyToolDefinition {
  return {
    name: fn.name,
    description: fn.description ?? `The client's ${fn.name} function.`,
    // The client validates its own arguments; the model is shown the client's schema.
    input: z.unknown(),
    inputSchema: fn.parameters ?? { type: "object", properties: {} },
    effects: "none",
    async execute(_input, ctx) {
      const run = ctx.run?.get(clientFunctionsKey);
      if (!run) throw new ArborError("invalid_input", `The client's ${fn.name} function is called inside a run only.`);
      const waited = await run.wait({ callId: ctx.callId, name: fn.name, functions: [...functions] }, ctx.abort, () =>
        ctx.metadata({ metadata: { awaiting: AWAITING_CLIENT } }),
      );
      if ("aborted" in waited) {
        throw new ArborError("aborted", "The run stopped while waiting for the client's function output.");
      }
      return { output: waited.output, metadata: { client_tool: true } };
    },
  };
}

/** Client functions as a feature of every run: their calls wait on `asks`. */
export function clientFunctionExtension(asks: ClientFunctionAsks): RunExtension {
  return {
    name: "client-functions",
    start(ctx) {
      ctx.values.set(clientFunctionsKey, {
        wait: (call, signal, onWaiting) => asks.wait({ ...call, sessionId: ctx.sessionId }, signal, onWaiting),
      });
    },
  };
}

/**
 * The run's input with the client functions of the session's open calls added, unless the caller gave
 * the run tools of its own: a run woken after its process died has no client to ask, and the
 * functions were kept with the calls.
 */
export async function withClientFunctions<T extends { tools?: readonly AnyToolDefinition[] }>(
  input: T,
  asks: ClientFunctionAsks,
  sessionId: string,
): Promise<T> {
  if (input.tools !== undefined) return input;
  const functions = await asks.openFunctions(sessionId);
  if (functions.length === 0) return input;
  return { ...input, tools: clientFunctionTools(functions) };
}

/** A run tool for each of the client's functions. */
export function clientFunctionTools(functions: readonly ClientFunction[]): AnyToolDefinition[] {
  return functions.map((fn) => clientFunctionTool(fn, functions));
}

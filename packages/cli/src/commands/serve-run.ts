import { isArborError } from "@arbor/core";
import { createServer, DEFAULT_HOST, DEFAULT_PORT, isLoopbackHost } from "@arbor/server";
import type { OptionValues } from "../args.js";
import { flag, intOption, stringOption } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import { EXIT_OK, UsageError } from "../errors.js";
import type { Io } from "../io.js";
import { writeLines } from "../io.js";
import { serveLoginRedirect } from "../mcp/serve-callback.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { resolveStore, withStore } from "../store.js";
import { startTelemetry } from "../telemetry.js";
import { serveCluster } from "./serve-cluster.js";
import { DEFAULT_TAKEOVER_MS, RESUME_SWEEP_MS, TOKEN_ENV } from "./serve-defaults.js";
import { InterruptedRuns } from "./serve-resume.js";
import { serveToken } from "./serve-token.js";

function describeFailure(err: unknown): string {
  if (isArborError(err)) return `${err.code}: ${err.message}`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Said at start-up when no model is configured: the inspector's model box defaults to the server's model. */
const NO_MODEL_WARNING =
  'warning: no model is configured, so a chat that names none (the inspector\'s model box defaults to the server\'s) fails with "No model is configured". Start with --model <provider>/<model>, or set ARBOR_MODEL or "model" in arbor.json.';

/** Listens, with Node's EADDRINUSE and EACCES said as what to do about them. */
async function listenOn(server: ReturnType<typeof createServer>, host: string, port: number) {
  try {
    return await server.listen({ host, port });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "EADDRINUSE") {
      throw new UsageError(
        `port ${port} on ${host} is already in use (another arbor serve?): stop that process or pick another port with --port <n> (--port 0 takes a free one).`,
      );
    }
    if (code === "EACCES") {
      throw new UsageError(
        `not allowed to listen on port ${port} of ${host}: ports below 1024 need privileges; pick --port 1024 or above.`,
      );
    }
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new UsageError(
        `--host ${host} is not an address of this machine: use 127.0.0.1 (the default) or one of its own addresses.`,
      );
    }
    throw err;
  }
}

export async function runServeCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  if (operands.length > 0) throw new UsageError(`unexpected argument '${operands[0]}'. Usage: arbor serve [options]`);
  const host = stringOption(values, "host") ?? DEFAULT_HOST;
  const port = intOption(values, "port", 0, 65535) ?? DEFAULT_PORT;
  const token = await serveToken(io, values);
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const config = loadCommandConfig(io, cwd, {
    model: stringOption(values, "model"),
    baseURL: stringOption(values, "base-url"),
  });
  // An identity provider's tokens (`auth.jwt`) guard a server as well as a token of its own.
  if (!isLoopbackHost(host) && token === undefined && config.auth?.jwt === undefined) {
    throw new UsageError(
      `--host ${host} is not a loopback address, so it needs a token (--token-file, $${TOKEN_ENV} or --token) or an identity provider (auth.jwt in arbor.json): anyone who can reach it could run agents with your tools.`,
    );
  }
  if (flag(values, "cluster")) {
    const takeoverMs = intOption(values, "takeover-ms", 1_000, 600_000) ?? DEFAULT_TAKEOVER_MS;
    const resolved = await resolveStore(stringOption(values, "store"), io.env, io.homedir);
    return serveCluster(io, { host, port, token, cwd, config, json: flag(values, "json") }, resolved, takeoverMs);
  }
  if (values["takeover-ms"] !== undefined) throw new UsageError("--takeover-ms only applies with --cluster.");
  const telemetry = await startTelemetry(config, io.env);
  try {
    return await withStore(io, values, async (store) => {
      // The runtime records every run and publishes its watch events to its own hub, which the server reads.
      const login = serveLoginRedirect();
      const runtime = cliRuntime(io, "arbor serve", {
        store,
        config,
        cwd,
        snapshots: true,
        mcpLoginRedirect: login.redirect,
        ...(telemetry ? { telemetry: telemetry.observer } : {}),
      });
      let releaseInterrupt: (() => void) | undefined;
      try {
        const server = createServer({
          runtime,
          ...(token === undefined ? {} : { token }),
          // The client got a code and a redacted message; the operator gets the whole error.
          onError: (err) => writeLines(io.stderr, [`arbor serve: request failed: ${describeFailure(err)}`]),
        });
        const listening = await listenOn(server, host, port);
        login.listening(listening.url);
        if (config.model === undefined) writeLines(io.stderr, [NO_MODEL_WARNING]);
        // The handler stays until the server has shut down: a second Ctrl-C then exits at once (130),
        // and a signal handler a library installed meanwhile never finds itself alone and re-raises it.
        const stopped = new Promise<void>((resolve) => {
          releaseInterrupt = io.onInterrupt?.(() => resolve());
        });
        // Named before the address is printed, so whoever waits for the address has seen them;
        // runs cut off later (or whose dead driver's lease had not yet expired) are found by the sweeps.
        const interrupted = flag(values, "no-resume")
          ? undefined
          : new InterruptedRuns(store, runtime, (line) => writeLines(io.stderr, [line]));
        await interrupted?.sweep();
        interrupted?.every(RESUME_SWEEP_MS);
        if (flag(values, "json")) io.stdout.write(`${JSON.stringify({ url: listening.url })}\n`);
        else
          writeLines(io.stdout, [
            `Arbor is serving ${listening.url} (API reference: ${listening.url}/api/docs). Ctrl-C stops it.`,
          ]);
        await stopped;
        await interrupted?.stop();
        await listening.close();
      } finally {
        // What the aborted runs wrote last reaches the event log before the store closes.
        await runtime.close();
        releaseInterrupt?.();
      }
      return EXIT_OK;
    });
  } finally {
    // Spans still buffered go out before the process ends.
    await telemetry?.shutdown();
  }
}

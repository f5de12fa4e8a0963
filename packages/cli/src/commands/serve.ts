import { createRuntime, isArborError } from "@arbor/core";
import { createServer, DEFAULT_HOST, DEFAULT_PORT, isLoopbackHost } from "@arbor/server";
import { flag, intOption, type OptionDefs, stringOption } from "../args.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { writeLines } from "../io.js";
import { loadCommandConfig, RUN_OPTIONS, workspaceDir } from "../run/flags.js";
import { arborHomeOf, resolveStore, withStore } from "../store.js";
import { startTelemetry } from "../telemetry.js";
import type { TopCommand } from "./command.js";
import { DEFAULT_TAKEOVER_MS, serveCluster } from "./serve-cluster.js";
import { InterruptedRuns, RESUME_SWEEP_MS } from "./serve-resume.js";
import { serveToken, TOKEN_ENV } from "./serve-token.js";

function describeFailure(err: unknown): string {
  if (isArborError(err)) return `${err.code}: ${err.message}`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** The flags `arbor serve` shares with `arbor run`, described once. */
function pick(defs: OptionDefs, names: readonly string[]): OptionDefs {
  const out: Record<string, OptionDefs[string]> = {};
  for (const name of names) {
    const def = defs[name];
    if (def) out[name] = def;
  }
  return out;
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

export const serveCommand: TopCommand = {
  name: "serve",
  usage: "",
  summary: "Serve the HTTP API (chat over SSE, sessions, approvals) on 127.0.0.1:4096 until Ctrl-C.",
  details: [
    "Routes are listed at /api/openapi.json. POST /api/chat streams a run as server-sent events with id lines; a client that disconnects can resume with Last-Event-ID (also from a restarted server: the events are kept in the store's event log), and a disconnect never stops the run (POST /api/sessions/<id>/abort does). Permission asks wait for POST /api/permissions/<id>.",
    "Only loopback addresses are served without a token. --host with any other address needs a token, and then every route but /api/health needs 'Authorization: Bearer <token>'.",
    "The server's token acts as an admin of every project. Tokens made by 'arbor tokens add' are accepted too, each with its scopes (read, run, admin) and projects; 'arbor tokens revoke' refuses one from the next request on.",
    `The token comes from --token, else the first line of --token-file (- reads stdin), else $${TOKEN_ENV}. Prefer the file or the variable: a command line is visible to every user of the machine (ps).`,
    "A request that fails on the server's side answers 500 with an error code and a message without file paths; the whole error goes to stderr.",
    `At start-up, and every ${RESUME_SWEEP_MS / 1000} s while it serves, the server resumes every run that was interrupted (its process crashed or was killed mid-run: on this machine as soon as that process is gone, even when a restarted server got its pid; a driver on another machine once its lease expires) from the session's journal and names each on stderr; --no-resume leaves them as they are.`,
    "Ctrl-C (or SIGTERM, SIGHUP) stops the server: running runs are aborted and saved, the store is closed, and the exit code is 0.",
    "--cluster makes this server one of several over one PostgreSQL store (behind any load balancer, no sticky sessions): a run is driven by one instance at a time, a dead instance's runs are taken over by another within --takeover-ms, live events, aborts and permission answers work on every instance, and SIGTERM hands this instance's runs to the others instead of aborting them. See docs/deploy.md.",
  ],
  options: {
    host: { type: "string", valueName: "address", description: `The address to listen on (default ${DEFAULT_HOST}).` },
    port: { type: "string", valueName: "n", description: `The port, 0 for any free one (default ${DEFAULT_PORT}).` },
    token: {
      type: "string",
      valueName: "secret",
      description: `Require 'Authorization: Bearer <secret>' on every route but /api/health; needed for a non-loopback --host (visible in ps: prefer --token-file or $${TOKEN_ENV}).`,
    },
    "token-file": {
      type: "string",
      valueName: "path",
      description: `Read the token from the first line of this file (- for stdin) instead of --token.`,
    },
    ...pick(RUN_OPTIONS, ["model", "base-url", "cwd"]),
    cluster: {
      type: "boolean",
      description: "Serve as one instance of a cluster over a PostgreSQL store (see docs/deploy.md); other stores refuse it.",
    },
    "takeover-ms": {
      type: "string",
      valueName: "ms",
      description: `With --cluster: how long a dead instance's runs wait before another instance takes them over (default ${DEFAULT_TAKEOVER_MS}).`,
    },
    json: { type: "boolean", description: 'Print {"url": …} on stdout once listening instead of a sentence.' },
    "no-resume": {
      type: "boolean",
      description:
        "Do not take up the runs that were interrupted (their process crashed or was killed), at start-up or later; by default each is resumed and stderr names it.",
    },
  },
  async run(io, values, operands) {
    if (operands.length > 0) throw new UsageError(`unexpected argument '${operands[0]}'. Usage: arbor serve [options]`);
    const host = stringOption(values, "host") ?? DEFAULT_HOST;
    const port = intOption(values, "port", 0, 65535) ?? DEFAULT_PORT;
    const token = await serveToken(io, values);
    if (!isLoopbackHost(host) && token === undefined) {
      throw new UsageError(
        `--host ${host} is not a loopback address, so it needs a token (--token-file, $${TOKEN_ENV} or --token): anyone who can reach it could run agents with your tools.`,
      );
    }
    const cwd = workspaceDir(io, stringOption(values, "cwd"));
    const config = loadCommandConfig(io, cwd, {
      model: stringOption(values, "model"),
      baseURL: stringOption(values, "base-url"),
    });
    if (flag(values, "cluster")) {
      const takeoverMs = intOption(values, "takeover-ms", 1_000, 600_000) ?? DEFAULT_TAKEOVER_MS;
      const resolved = resolveStore(stringOption(values, "store"), io.env, io.homedir);
      return serveCluster(io, { host, port, token, cwd, config, json: flag(values, "json") }, resolved, takeoverMs);
    }
    if (values["takeover-ms"] !== undefined) throw new UsageError("--takeover-ms only applies with --cluster.");
    const telemetry = await startTelemetry(config, io.env);
    try {
      return await withStore(io, values, async (store) => {
        // The runtime records every run and publishes its watch events to its own hub, which the server reads.
        const runtime = createRuntime({
          store,
          config,
          env: io.env,
          cwd,
          arborHome: arborHomeOf(io),
          holderName: "arbor serve",
          snapshots: true,
          ...(telemetry ? { telemetry: telemetry.observer } : {}),
        });
        try {
          const server = createServer({
            runtime,
            ...(token === undefined ? {} : { token }),
            // The client got a code and a redacted message; the operator gets the whole error.
            onError: (err) => writeLines(io.stderr, [`arbor serve: request failed: ${describeFailure(err)}`]),
          });
          const listening = await listenOn(server, host, port);
          if (config.model === undefined) writeLines(io.stderr, [NO_MODEL_WARNING]);
          const stopped = new Promise<void>((resolve) => {
            const release = io.onInterrupt?.(() => {
              release?.();
              resolve();
            });
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
        }
        return EXIT_OK;
      });
    } finally {
      // Spans still buffered go out before the process ends.
      await telemetry?.shutdown();
    }
  },
};

import type { OptionDefs } from "../args.js";
import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";
import { DEFAULT_TAKEOVER_MS, RESUME_SWEEP_MS, TOKEN_ENV } from "./serve-defaults.js";

/** The flags `arbor serve` shares with `arbor run`, described once. */
function pick(defs: OptionDefs, names: readonly string[]): OptionDefs {
  const out: Record<string, OptionDefs[string]> = {};
  for (const name of names) {
    const def = defs[name];
    if (def) out[name] = def;
  }
  return out;
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
    // The defaults are the server's own: read from it when this help is shown, not at start-up.
    host: {
      type: "string",
      valueName: "address",
      description: async () => `The address to listen on (default ${(await import("@arbor/server")).DEFAULT_HOST}).`,
    },
    port: {
      type: "string",
      valueName: "n",
      description: async () => `The port, 0 for any free one (default ${(await import("@arbor/server")).DEFAULT_PORT}).`,
    },
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
  run: async (io, values, operands) => (await import("./serve-run.js")).runServeCommand(io, values, operands),
};

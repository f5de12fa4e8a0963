import type { Config, Store, StoreSpec } from "@arbor/core";
import { ClusterNode, createServer } from "@arbor/server";
import { cliRuntime } from "../cli-runtime.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { type Io, writeLines } from "../io.js";
import { serveLoginRedirect } from "../mcp/serve-callback.js";
import { openResolvedStore, type ResolvedStore } from "../store.js";
import { whileUnreachable } from "./serve-reach.js";

/**
 * The store a cluster runs on, with the lease life set to the takeover time. Only PostgreSQL: the
 * instances share its queue and LISTEN/NOTIFY, which the other stores do not have.
 */
export function clusterSpec(resolved: ResolvedStore, takeoverMs: number): Extract<StoreSpec, { kind: "postgres" }> {
  const spec = resolved.spec;
  if (spec.kind !== "postgres") {
    const why =
      spec.kind === "mysql"
        ? "MySQL has no LISTEN/NOTIFY for live events across instances and pg-boss (the run queue) needs PostgreSQL"
        : `the ${spec.kind} store lives on one machine, so only one server can use it`;
    throw new UsageError(
      `--cluster needs a PostgreSQL store (--store postgres://…), not the ${resolved.label}: ${why}. Without --cluster, run one arbor serve per store.`,
    );
  }
  return { ...spec, leaseTtlMs: takeoverMs };
}

/** Opens the cluster's store and its node (not started: the runtime comes first). */
export async function openCluster(
  resolved: ResolvedStore,
  takeoverMs: number,
  log: (line: string) => void,
  cwd?: string,
): Promise<{ store: Store; node: ClusterNode }> {
  const spec = clusterSpec(resolved, takeoverMs);
  const store = await whileUnreachable(resolved.label, () => openResolvedStore({ ...resolved, spec }), log);
  const node = new ClusterNode(
    {
      url: spec.url,
      ...(spec.schema ? { schema: spec.schema } : {}),
      sweepMs: Math.max(250, Math.min(2_000, takeoverMs / 4)),
      // A chat taken by an instance that went silent (perhaps before its run held a lease) is given
      // to another by the sweep after the takeover time; pg-boss's own check (floor 10 s) backs it up.
      silentChatMs: takeoverMs,
      heartbeatSeconds: Math.max(10, takeoverMs / 1_000),
      ...(cwd === undefined ? {} : { cwd }),
    },
    store,
    log,
  );
  return { store, node };
}

/** What `arbor serve` resolved before choosing between one server and a cluster instance. */
export interface ServeSetup {
  host: string;
  port: number;
  token: string | undefined;
  cwd: string;
  config: Config;
  json: boolean;
}

/**
 * Serves as one instance of a cluster until interrupted. Shutdown hands the runs back instead of
 * aborting them: the HTTP side closes, the queue stops giving this instance work, closing the store
 * gives the runs' leases back, and each run is queued for another instance, which wakes it from
 * its journal (what this process did after that is cut off, as with a crash, by exiting at once).
 */
export async function serveCluster(io: Io, setup: ServeSetup, resolved: ResolvedStore, takeoverMs: number): Promise<number> {
  const log = (line: string) => writeLines(io.stderr, [line]);
  const { store, node } = await openCluster(resolved, takeoverMs, log, setup.cwd);
  let handed: string[] = [];
  let releaseInterrupt: (() => void) | undefined;
  try {
    const login = serveLoginRedirect();
    const runtime = cliRuntime(io, "arbor serve --cluster", {
      store,
      config: setup.config,
      cwd: setup.cwd,
      snapshots: true,
      mcpLoginRedirect: login.redirect,
      runEvents: node.runEvents,
    });
    const server = createServer({
      runtime,
      cluster: node,
      ...(setup.token === undefined ? {} : { token: setup.token }),
      onError: (err) => log(`arbor serve: request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    });
    const listening = await server.listen({ host: setup.host, port: setup.port });
    login.listening(listening.url);
    // The handler stays until the instance has handed its runs over (see serve-run.ts).
    const stopped = new Promise<void>((resolve) => {
      releaseInterrupt = io.onInterrupt?.(() => resolve());
    });
    await node.start(runtime);
    if (setup.json) io.stdout.write(`${JSON.stringify({ url: listening.url, instance: node.instance })}\n`);
    else
      writeLines(io.stdout, [
        `Arbor is serving ${listening.url} as cluster instance ${node.instance}. Ctrl-C hands its runs to the others.`,
      ]);
    await stopped;
    handed = await node.drain();
    await listening.close();
  } finally {
    // Closing the store gives back every lease this instance holds, so the queued wakes can take them.
    await store.close().catch(() => undefined);
    await node.requeue(handed);
    await node.close();
    releaseInterrupt?.();
  }
  if (handed.length > 0) log(`arbor serve: handed ${handed.length} run(s) to the other instances: ${handed.join(", ")}`);
  // The runs still going here must not write on: the process ends now, as the caller would after returning.
  io.exit?.(EXIT_OK);
  return EXIT_OK;
}

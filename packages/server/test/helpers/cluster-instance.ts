import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, openStore, type Store } from "@arbor/core";
import { type Script, scriptedModel } from "@arbor/testkit";
import { createTestDatabase } from "../../../cli/test/helpers/postgres.js";
import { ClusterNode } from "../../src/index.js";

/** Where an instance joins an existing cluster: its database, a store on it, the workspace. */
export interface ClusterPlace {
  url: string;
  store: Store;
  cwd: string;
  sweepMs?: number;
  /** How long a chat job's heartbeat may be silent before the sweep gives it back (default 1,000 ms). */
  silentChatMs?: number;
  log?: string[];
}

/**
 * Cluster instances in process, each over a database of its own unless told to join one (pg-boss's
 * queue lives in it, so no other test's workers take these jobs); everything they open is undone
 * by the `cleanups` the caller runs after each test.
 */
export function clusterRig(cleanups: Array<() => Promise<void>>) {
  async function database(): Promise<string> {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    return db.url;
  }

  async function postgresStore(url: string): Promise<Store> {
    const store = await openStore({ kind: "postgres", url });
    cleanups.push(() => store.close());
    return store;
  }

  /**
   * A cluster instance over its own database (or `on`), its runs answered by `script`; sweeps only
   * when told unless `sweepMs` says how often.
   */
  async function instance(script: Script, on?: ClusterPlace) {
    const url = on?.url ?? (await database());
    const store = on?.store ?? (await postgresStore(url));
    const cwd = on?.cwd ?? mkdtempSync(join(tmpdir(), "arbor-cluster-queue-"));
    if (!on) cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
    const log = (line: string) => on?.log?.push(line);
    const settings = { url, sweepMs: on?.sweepMs ?? 60_000, heartbeatSeconds: 10, silentChatMs: on?.silentChatMs ?? 1_000, cwd };
    const node = new ClusterNode(settings, store, log);
    const runtime = createRuntime({
      store,
      cwd,
      model: scriptedModel(script),
      holderName: "cluster test",
      runEvents: node.runEvents,
    });
    await node.start(runtime);
    cleanups.push(() => node.close());
    return { url, store, cwd, node, runtime };
  }

  return { database, postgresStore, instance };
}

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AnyToolDefinition,
  builtinTools,
  type Config,
  createRuntime,
  openStore,
  type Runtime,
  type RuntimeOptions,
  type Store,
  WatchHub,
} from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { type Script, scriptedModel } from "@arbor/testkit";
import { type ArborServer, createServer, type ListeningServer } from "../../../server/src/index.js";

/** A real server (port 0) over a runtime with the scripted model and a temp file store, serving the built inspector. */
export interface WebServer {
  url: string;
  store: Store;
  runtime: Runtime;
  watch: WatchHub;
  server: ArborServer;
  listening: ListeningServer;
  /** The workspace the tools act on. */
  cwd: string;
  api(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export interface WebServerOptions {
  script?: Script;
  /** A model of its own (a routed one) instead of the scripted one over `script`; null for none at all. */
  model?: RuntimeOptions["model"] | null;
  config?: Config;
  tools?: AnyToolDefinition[];
  token?: string;
  /** Further runtime options (e.g. `snapshots: true` to record file changes for revert). */
  runtime?: Partial<RuntimeOptions>;
}

export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-web-")));
  const cwd = join(root, "work");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  const store = await openStore(join(root, "store"));
  const blobs = new MemoryBlobStore();
  const watch = new WatchHub(store);
  // The runtime publishes its runs' messages, goals and sub-traces to the hub the server watches.
  const runtime = createRuntime({
    store,
    watch,
    cwd,
    arborHome: home,
    env: {},
    blobs,
    // null: a server started with no model configured, as `arbor serve` is without --model.
    model: options.model === null ? undefined : (options.model ?? scriptedModel(options.script ?? [])),
    ...(options.config ? { config: options.config } : {}),
    tools: [...builtinTools({ blobs, arborHome: home }), ...(options.tools ?? [])],
    ...options.runtime,
  });
  const server = createServer({ runtime, ...(options.token ? { token: options.token } : {}) });
  const listening = await server.listen({ host: "127.0.0.1", port: 0 });
  return {
    url: listening.url,
    store,
    runtime,
    watch,
    server,
    listening,
    cwd,
    api(path, init = {}) {
      const headers: Record<string, string> = {};
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (init.json !== undefined) headers["content-type"] = "application/json";
      return fetch(`${listening.url}${path}`, {
        method: init.method ?? (init.json === undefined ? "GET" : "POST"),
        headers,
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      });
    },
    async close() {
      await listening.close();
      await runtime.close();
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

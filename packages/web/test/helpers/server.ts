import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyToolDefinition, Config, RuntimeOptions } from "@arbor/core";
import { type Script, scriptedModel } from "@arbor/testkit";
import { expect } from "vitest";
import { serveWorkspace, type TestServer } from "../../../server/test/helpers/server.js";

/** A real server (port 0) over a runtime with the scripted model and a temp file store, serving the built inspector. */
export interface WebServer extends TestServer {
  /** Stops the server, its runtime and store, and removes its temp folder. */
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

/** The caller closes it: a browser test may keep one for a whole file. */
export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-web-")));
  mkdirSync(join(root, "work"));
  mkdirSync(join(root, "home"));
  const server = await serveWorkspace(root, {
    store: join(root, "store"),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.token ? { server: { token: options.token } } : {}),
    runtime: {
      // null: a server started with no model configured, as `arbor serve` is without --model.
      model: options.model === null ? undefined : (options.model ?? scriptedModel(options.script ?? [])),
      ...(options.config ? { config: options.config } : {}),
      ...options.runtime,
    },
  });
  return {
    ...server,
    async close() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** One chat over HTTP, read to its end, which must be `done`: the id of the session it ran in. */
export async function chatToEnd(server: WebServer, json: Record<string, unknown>): Promise<string> {
  const body = await (await server.api("/api/chat", { json })).text();
  expect(body).toContain('"type":"done"');
  return /"session_id":"([^"]+)"/.exec(body)?.[1] as string;
}

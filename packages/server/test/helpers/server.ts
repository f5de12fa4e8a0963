import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AnyToolDefinition,
  builtinTools,
  createRuntime,
  defineTool,
  openStore,
  type Runtime,
  type RuntimeOptions,
  type Store,
  type StoreSpec,
  type ToolResult,
  WatchHub,
} from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { type Script, scriptedModel } from "@arbor/testkit";
import { afterEach } from "vitest";
import { z } from "zod";
import { createServer, type ServerOptions } from "../../src/index.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface TestServer {
  url: string;
  runtime: Runtime;
  watch: WatchHub;
  store: Store;
  /** The workspace the tools act on. */
  cwd: string;
  /** fetch against the server: `api("/api/sessions", { method: "POST", json: {...} })`. */
  api(path: string, init?: ApiInit): Promise<Response>;
  /** Stops the HTTP server (runs go on until the runtime closes at the end of the test). */
  close(): Promise<void>;
  /** Stops the HTTP server, the runtime and the store, as the process going away would; again, nothing. */
  stop(): Promise<void>;
}

export interface ApiInit extends RequestInit {
  /** Sent as the JSON body with Content-Type: application/json. */
  json?: unknown;
  token?: string;
}

export interface StartOptions {
  /** The scripted model's steps (each model call plays the next). */
  script?: Script;
  tools?: AnyToolDefinition[];
  runtime?: Partial<RuntimeOptions>;
  server?: Partial<Omit<ServerOptions, "runtime" | "store">>;
  /** The store spec, given the test's temp directory (default: a file store in it). */
  store?: (root: string) => string | StoreSpec;
}

/** Runs `cleanup` after the current test, before the cleanups registered earlier (servers, temp dirs). */
export function onCleanup(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** A temp directory removed after the current test. */
export function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "arbor-server-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A temp directory with the `work` and `home` folders a server instance uses, removed after the current test. */
export function workspaceDir(): string {
  const root = tempDir();
  mkdirSync(join(root, "work"));
  mkdirSync(join(root, "home"));
  return root;
}

/** A server on 127.0.0.1, a free port, over a runtime with a temp file store and the scripted model. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const root = workspaceDir();
  return startInstance(root, {
    ...options,
    store: options.store?.(root) ?? join(root, "store"),
    runtime: { clock: { now: () => Date.now(), sleep: async () => {} }, ...options.runtime },
  });
}

/**
 * One server instance over `root` (a {@link workspaceDir}) and a store: its own store handle, runtime
 * and listener, sharing nothing in memory with another instance over the same store, as a new process
 * would. Stopped after the current test.
 */
export async function startInstance(
  root: string,
  options: Omit<StartOptions, "store"> & { store: string | StoreSpec },
): Promise<TestServer> {
  const server = await serveWorkspace(root, options);
  cleanups.push(() => server.stop());
  return server;
}

/**
 * A server over a runtime in `root` (its `work` and `home` folders must exist): the store `options.store`,
 * the built-in tools and `options.tools`, the scripted model unless `options.runtime` names another.
 * The caller stops it; the browser tests keep one for a whole file.
 */
export async function serveWorkspace(
  root: string,
  options: Omit<StartOptions, "store"> & { store: string | StoreSpec },
): Promise<TestServer> {
  const cwd = join(root, "work");
  const home = join(root, "home");
  const store = await openStore(options.store);
  const blobs = new MemoryBlobStore();
  // The runtime publishes its runs' messages, goals and sub-traces to the hub.
  const watch = new WatchHub(store);
  const runtime = createRuntime({
    store,
    watch,
    cwd,
    arborHome: home,
    env: {},
    blobs,
    model: scriptedModel(options.script ?? []),
    tools: [...builtinTools({ blobs, arborHome: home }), ...(options.tools ?? [])],
    ...options.runtime,
  });
  const server = createServer({ runtime, ...options.server });
  const listening = await server.listen({ host: "127.0.0.1", port: 0 });
  let stopped = false;
  const token = options.server?.token;
  return {
    url: listening.url,
    runtime,
    watch,
    store,
    cwd,
    close: () => listening.close(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await listening.close();
      await runtime.close();
      await store.close();
    },
    api(path, init = {}) {
      const { json, token: override, ...rest } = init;
      const headers = new Headers(rest.headers);
      const bearer = override ?? token;
      if (bearer !== undefined && !headers.has("authorization")) headers.set("authorization", `Bearer ${bearer}`);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(`${listening.url}${path}`, {
        ...rest,
        headers,
        ...(json === undefined ? {} : { method: rest.method ?? "POST", body: JSON.stringify(json) }),
      });
    },
  };
}

/** A tool that holds each call until the test releases it (or the run is aborted). */
export function gateTool(name = "gate"): { tool: AnyToolDefinition; release(output?: string): void; calls: number } {
  const waiting: Array<(r: ToolResult) => void> = [];
  const gate = {
    calls: 0,
    tool: defineTool({
      name,
      description: "Waits until the test releases it.",
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<ToolResult>((resolve, reject) => {
          gate.calls++;
          waiting.push(resolve);
          ctx.abort.addEventListener("abort", () => reject(ctx.abort.reason), { once: true });
        }),
    }) as AnyToolDefinition,
    release(output = "released") {
      const next = waiting.shift();
      if (!next) throw new Error(`No ${name} call is waiting.`);
      next({ output });
    },
  };
  return gate;
}

/** An error response's `{error: {code, message}}`, checked for shape. */
export async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
  if (typeof body.error?.code !== "string" || typeof body.error.message !== "string") {
    throw new Error(`Not an error body: ${JSON.stringify(body)}`);
  }
  return { status: res.status, code: body.error.code, message: body.error.message };
}

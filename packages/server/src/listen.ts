import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Hono } from "hono";
import { WebSocketServer } from "ws";
import { ApiError } from "./errors.js";
import { isLoopbackHost } from "./http/security.js";
import { writeDirect } from "./protocols/http-chat/sse-response.js";

export interface ListenOptions {
  /** Default 127.0.0.1. Any non-loopback host needs the server to have a token. */
  host?: string;
  /** Default 4096; 0 picks a free port. */
  port?: number;
}

export interface ListeningServer {
  /** `http://127.0.0.1:4096`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops accepting, ends open streams and closes every connection. */
  close(): Promise<void>;
}

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 4096;

export async function listen(
  app: Hono,
  options: ListenOptions & { hasToken: boolean; onClose: () => void },
): Promise<ListeningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  if (!isLoopbackHost(host) && !options.hasToken) {
    throw new ApiError(
      "invalid_input",
      `Refusing to listen on ${host} without a token: anyone who can reach it could run agents with your tools. Pass a token (arbor serve --token …) or bind 127.0.0.1.`,
    );
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ApiError("invalid_input", `Port must be an integer from 0 to 65535, not ${port}.`);
  }
  // noServer: node-server hands it the upgrades its routes accept (the trace watch).
  const wss = new WebSocketServer({ noServer: true });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      { fetch: (request, env) => sendDirect(app, request, env), hostname: host, port, websocket: { server: wss } },
      () => {
        s.off("error", reject);
        resolve(s);
      },
    );
    s.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  // An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) accepts plain IPv4 connections: print the IPv4 form,
  // which every client and browser sends a Host header for that the loopback check knows.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address.address)?.[1];
  const shown = mapped ?? (address.family === "IPv6" ? `[${address.address}]` : address.address);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${address.port}`,
    host: address.address,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        options.onClose();
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close((err) => (err ? reject(err) : resolve()));
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * The app's answer, with a run's SSE stream written to the Node response directly (see `writeDirect`)
 * once every middleware has had its say on the status and headers; any other answer goes to the
 * node-server as it is.
 */
async function sendDirect(app: Hono, request: Request, env: unknown): Promise<Response> {
  const response = await app.fetch(request, env);
  const out = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return out !== undefined && writeDirect(response, out) ? RESPONSE_ALREADY_SENT : response;
}

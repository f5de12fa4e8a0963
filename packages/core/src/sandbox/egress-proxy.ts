import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostAllowed } from "./policy.js";

/** The longest request head the proxy reads before deciding (a CONNECT line or an absolute-URL request). */
const MAX_HEAD = 16 * 1024;

export interface EgressProxy {
  /** The unix socket a backend bridges into the sandbox. */
  socket: string;
  /** Hosts refused so far, in order, each once. */
  refused(): string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy on a unix socket, one per sandboxed call: `CONNECT host:port` (HTTPS and any TCP
 * tunnel) and absolute-URL requests (plain HTTP) reach only the allowed hosts; the rest get a 403
 * saying why, and are remembered so the model and the user are told. The sandbox has no other way
 * out: its network namespace holds only loopback.
 */
export async function startEgressProxy(allow: readonly string[]): Promise<EgressProxy> {
  const dir = await mkdtemp(join(tmpdir(), "arbor-egress-"));
  const socket = join(dir, "proxy.sock");
  const refused = new Set<string>();
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > MAX_HEAD) client.end("HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n");
        return;
      }
      client.off("data", onData);
      const line = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
      const target = parseTarget(line);
      if (!target) {
        client.end("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nArbor sandbox proxy: not a proxy request.\n");
        return;
      }
      if (!hostAllowed(target.host, allow)) {
        refused.add(target.host);
        client.end(
          "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" +
            `Arbor sandbox: ${target.host} is not in sandbox.network.allow.\n`,
        );
        return;
      }
      const upstream = connect({ host: target.host, port: target.port });
      open.add(upstream);
      upstream.on("close", () => open.delete(upstream));
      upstream.on("error", () => {
        if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      });
      upstream.once("connect", () => {
        if (target.tunnel) {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          const rest = head.subarray(end + 4);
          if (rest.length > 0) upstream.write(rest);
        } else {
          upstream.write(head);
        }
        client.pipe(upstream).pipe(client);
      });
    };
    client.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, resolve);
  });
  return {
    socket,
    refused: () => [...refused],
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The host and port a request line names: `CONNECT host:443 HTTP/1.1` or `GET http://host/path HTTP/1.1`. */
export function parseTarget(line: string): { host: string; port: number; tunnel: boolean } | undefined {
  const [method, uri] = line.split(" ");
  if (!method || !uri) return undefined;
  if (method === "CONNECT") {
    const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(uri);
    if (!match) return undefined;
    return { host: match[1]!, port: Number(match[2]), tunnel: true };
  }
  try {
    const url = new URL(uri);
    if (url.protocol !== "http:") return undefined;
    return { host: url.hostname, port: url.port ? Number(url.port) : 80, tunnel: false };
  } catch {
    return undefined;
  }
}

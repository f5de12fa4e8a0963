import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { RecordedRequest } from "./fake-openai-server.js";
import { type ProviderWire, wireShape } from "./provider-wire.js";
import type { RecordedReply } from "./recorded-streams.js";

export interface RecordedProviderOptions {
  wire: ProviderWire;
  /** Answers to the model calls, one per call in order. */
  replies: RecordedReply[];
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RecordedProviderServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** What the provider's client takes as its base URL (`<url>/v1`, `<url>/v1beta` for Gemini, `<url>` for Bedrock). */
  baseURL: string;
  /** Every request received, in order, bodies parsed as JSON. */
  requests: RecordedRequest[];
  /** Model calls answered so far. */
  readonly callCount: number;
  close(): Promise<void>;
}

/**
 * A loopback server that answers a provider's streaming endpoint with recorded streams, framed as
 * the real API frames them, and keeps every request: tests replay real provider output through the
 * real client code and check what each next request carried. It also serves as an HTTP proxy (a
 * tunnel or an absolute-form request), so a client that builds its URLs from a provider's own host
 * name (Azure OpenAI's `<resource>.openai.azure.com`) can reach it through `HTTP_PROXY`, unchanged.
 */
export async function startRecordedProvider(options: RecordedProviderOptions): Promise<RecordedProviderServer> {
  const shape = wireShape(options.wire);
  const requests: RecordedRequest[] = [];
  let calls = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // An absolute URL is a request sent to the server as a proxy without a tunnel.
    const target = new URL(req.url ?? "/", "http://loopback");
    const path = target.pathname;
    const text = await readBody(req);
    requests.push({ method: req.method ?? "GET", path, search: target.search, headers: req.headers, body: parseBody(text) });
    if (req.method !== "POST" || !shape.isModelCall(path, target.searchParams)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path} on the ${options.wire} server` } }));
      return;
    }
    const reply = options.replies[calls++];
    if (reply === undefined) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `recording exhausted: call ${calls} of ${options.replies.length}` } }));
      return;
    }
    switch (reply.kind) {
      case "error":
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body));
        return;
      case "stream":
        res.writeHead(200, { "content-type": shape.contentType, "cache-control": "no-cache" });
        res.end(shape.encode(reply.events));
        return;
    }
  }

  // A proxied client opens a tunnel first: answer it, then serve the tunnelled bytes as one more connection.
  server.on("connect", (_req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    server.emit("connection", socket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? "127.0.0.1"}:${port}`;
  return {
    url,
    baseURL: `${url}${shape.basePath}`,
    requests,
    get callCount() {
      return calls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

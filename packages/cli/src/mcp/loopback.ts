import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpAuthorizationResponse, McpAuthorizer } from "@arbor/core/tools";

export interface LoopbackOptions {
  /** Sends the user to the authorization URL: opens a browser, prints the link, or (in tests) fetches it. */
  open: (url: URL) => void | Promise<void>;
  /** The port to listen on (the one a client was registered with); taken by another program, any free one is. */
  port?: number;
  /** How long a login may take before it is given up. */
  timeoutMs?: number;
  /** Gives up the login waiting (Ctrl-C). */
  signal?: AbortSignal;
  /** The listener does not keep the process alive (a run's, which may never need it). */
  unref?: boolean;
}

const CALLBACK_PATH = "/callback";
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

interface Waiter {
  resolve(response: McpAuthorizationResponse): void;
  reject(err: Error): void;
}

/**
 * The redirect target of an OAuth login from the command line (RFC 8252 §7.3): an HTTP listener on
 * 127.0.0.1 only, at `/callback`, that hands the authorization server's answer to the login
 * waiting for it. One login at a time; an answer nobody waits for is refused.
 */
export class LoopbackAuthorizer implements McpAuthorizer {
  private waiter: Waiter | undefined;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
    private readonly options: LoopbackOptions,
  ) {}

  static async start(options: LoopbackOptions): Promise<LoopbackAuthorizer> {
    let authorizer: LoopbackAuthorizer | undefined;
    const server = createServer((req, res) => authorizer?.answer(req, res));
    const port = await listen(server, options.port ?? 0).catch((err: NodeJS.ErrnoException) => {
      if (options.port && err.code === "EADDRINUSE") return listen(server, 0);
      throw err;
    });
    if (options.unref) server.unref();
    authorizer = new LoopbackAuthorizer(server, `http://127.0.0.1:${port}${CALLBACK_PATH}`, options);
    return authorizer;
  }

  async authorize(url: URL, given?: AbortSignal): Promise<McpAuthorizationResponse> {
    const signal = given ?? this.options.signal;
    if (this.waiter) throw new Error("a login is already waiting for its browser");
    const answered = new Promise<McpAuthorizationResponse>((resolve, reject) => {
      const timer = setTimeout(
        () => settle(() => reject(new Error("no answer from the browser in time"))),
        this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      );
      const onAbort = () => settle(() => reject(new Error("the login was interrupted")));
      const settle = (done: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiter = undefined;
        done();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiter = {
        resolve: (response) => settle(() => resolve(response)),
        reject: (err) => settle(() => reject(err)),
      };
    });
    const waiting = this.waiter as Waiter | undefined;
    try {
      await this.options.open(url);
    } catch (err) {
      waiting?.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return answered;
  }

  async close(): Promise<void> {
    this.waiter?.reject(new Error("the login was closed"));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.redirectUrl);
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      page(res, 404, "Not found.");
      return;
    }
    const waiter = this.waiter;
    if (!waiter) {
      page(res, 409, "No login is waiting for this answer. Start one with `arbor mcp login <server>`.");
      return;
    }
    const q = url.searchParams;
    const field = (name: string) => q.get(name) ?? undefined;
    const response: McpAuthorizationResponse = Object.fromEntries(
      Object.entries({
        code: field("code"),
        state: field("state"),
        iss: field("iss"),
        error: field("error"),
        errorDescription: field("error_description"),
      }).filter(([, v]) => v !== undefined),
    );
    page(
      res,
      200,
      response.error
        ? `The login failed (${response.error}). You can close this tab.`
        : "Logged in. You can close this tab and return to Arbor.",
    );
    waiter.resolve(response);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function page(res: ServerResponse, status: number, text: string): void {
  const escaped = text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html><title>Arbor</title><p>${escaped}</p>`);
}

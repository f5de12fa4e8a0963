import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy between one instance and PostgreSQL that the checker can cut: `cut()` resets every
 * connection through it and refuses new ones (as a dropped link or a firewall would) until
 * `restore()`. `upstreamPorts()` names the local ports of its connections to the server, which
 * PostgreSQL reports as `client_port`, so the checker can terminate exactly this instance's backends.
 */
export class CuttableProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private isCut = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<CuttableProxy> {
    let proxy: CuttableProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("the proxy has no TCP port");
    proxy = new CuttableProxy(server, address.port);
    return proxy;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.isCut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Drops the link: every open connection is reset and new ones are refused until `restore()`. */
  cut(): void {
    this.isCut = true;
    for (const { client, upstream } of [...this.pairs]) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  restore(): void {
    this.isCut = false;
  }

  upstreamPorts(): number[] {
    return [...this.pairs].flatMap(({ upstream }) => (upstream.localPort === undefined ? [] : [upstream.localPort]));
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

import { connect, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { servedUrl } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { createTestDatabase } from "./helpers/postgres.js";

/**
 * A cluster instance (re)started while its database does not answer — a cut link, PostgreSQL
 * restarting, a supervisor restarting the instance at once — waits for it and says so, instead of
 * exiting with "failed to open".
 */

const e2e = setupCliE2e("arbor-serve-reach-");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** A TCP front for PostgreSQL that resets its first `refusals` connections, as a cut link does. */
async function flakyFront(target: URL, refusals: number): Promise<{ port: number; refused(): number }> {
  let refused = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (refused < refusals) {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as { port: number }).port, refused: () => refused };
}

describe("arbor serve --cluster whose database does not answer at start-up", () => {
  it("tries again, saying so, and serves once the database answers", async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const front = await flakyFront(new URL(db.url), 3);
    const url = new URL(db.url);
    url.hostname = "127.0.0.1";
    url.port = String(front.port);

    const instance = e2e.startArbor(["serve", "--cluster", "--port", "0", "--json", "--cwd", e2e.workspace], {
      env: { ARBOR_STORE: url.toString(), ARBOR_MODEL: "openai/gpt-4o" },
    });
    await servedUrl(instance);
    expect(front.refused()).toBe(3);
    instance.child.kill("SIGINT");
    const r = await instance.result;
    expect(r.stderr).toMatch(/arbor serve: cannot reach the postgres store .*ECONNRESET.*; trying again in 0\.25 s/);
  }, 60_000);
});

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { type FakeOpenAIServer, startFakeOpenAI, text } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arbor, startArbor } from "./helpers/cli.js";

/** `arbor serve` end to end: the built binary on a free loopback port, runs against the fake OpenAI-compatible server. */

let dir: string;
let home: string;
let workspace: string;
let fake: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-serve-e2e-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function sseEvents(body: string): Array<{ id: string; event: RunEvent }> {
  return body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const [idLine, dataLine] = block.split("\n");
      return {
        id: (idLine as string).slice("id: ".length),
        event: JSON.parse((dataLine as string).slice("data: ".length)) as RunEvent,
      };
    });
}

describe("arbor serve", () => {
  it("prints its URL once listening, serves a chat over SSE, and stops cleanly on Ctrl-C", async () => {
    fake = await startFakeOpenAI({ script: [[text("Hello over HTTP", { chunks: 3 })]] });
    const args = [
      "serve",
      "--port",
      "0",
      "--json",
      "--cwd",
      workspace,
      "--model",
      "openai-compatible/fake",
      "--base-url",
      fake.baseURL,
    ];
    const server = startArbor(args, { home });
    await server.waitForStdout(/\n$/);
    const { url } = JSON.parse(server.stdout()) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect(await (await fetch(`${url}/api/health`)).json()).toEqual({ status: "ok" });
    const res = await fetch(`${url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    const events = sseEvents(await res.text());
    expect(events.map((e) => e.event.type)).toEqual(["llm_start", "token", "token", "token", "llm_end", "done"]);
    const sessionId = events[0]?.event.session_id as string;
    const snapshot = (await (await fetch(`${url}/api/sessions/${sessionId}`)).json()) as { activePath: string[] };
    expect(snapshot.activePath).toHaveLength(2);

    server.child.kill("SIGINT");
    const result = await server.result;
    expect(result.code).toBe(0);
    // The session is in the default file store, where the CLI finds it.
    const shown = await arbor(["sessions", "show", sessionId, "--json"], { home });
    expect(shown.code).toBe(0);
  });

  it("refuses a non-loopback host without a token (exit 2, nothing opened)", async () => {
    const result = await arbor(["serve", "--host", "0.0.0.0", "--port", "0"], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--token");
  });

  it("with --token, routes but health need the bearer token", async () => {
    const server = startArbor(["serve", "--port", "0", "--json", "--token", "t0ken", "--cwd", workspace], { home });
    await server.waitForStdout(/\n$/);
    const { url } = JSON.parse(server.stdout()) as { url: string };
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${url}/api/sessions`, { headers: { authorization: "Bearer t0ken" } })).status).toBe(200);
    server.child.kill("SIGINT");
    expect((await server.result).code).toBe(0);
  });
});

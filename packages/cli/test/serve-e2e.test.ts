import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { servedUrl } from "./helpers/cli.js";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";

/** `arbor serve` end to end: the built binary on a free loopback port, runs against the fake OpenAI-compatible server. */

const e2e = setupCliE2e("arbor-serve-e2e-");

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
    const fake = await e2e.startFake({ script: [[text("Hello over HTTP", { chunks: 3 })]] });
    const args = ["serve", "--port", "0", "--json", "--cwd", e2e.workspace, "--model", FAKE_MODEL, "--base-url", fake.baseURL];
    const server = e2e.startArbor(args);
    const url = await servedUrl(server);
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
    const shown = await e2e.cli(["sessions", "show", sessionId, "--json"]);
    expect(shown.code).toBe(0);
  });

  it("refuses a non-loopback host without a token (exit 2, nothing opened)", async () => {
    const result = await e2e.cli(["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--token");
  });

  it("with --token, routes but health need the bearer token", async () => {
    const server = e2e.startArbor(["serve", "--port", "0", "--json", "--token", "t0ken", "--cwd", e2e.workspace]);
    const url = await servedUrl(server);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${url}/api/sessions`, { headers: { authorization: "Bearer t0ken" } })).status).toBe(200);
    server.child.kill("SIGINT");
    expect((await server.result).code).toBe(0);
  });

  it("takes the token from --token-file or $ARBOR_TOKEN, so it is not on the command line (ps)", async () => {
    const tokenFile = join(e2e.dir, "token");
    await writeFile(tokenFile, "f1le-t0ken\r\n# only the first line counts\n", { mode: 0o600 });
    const cases: Array<{ args: string[]; env: Record<string, string>; token: string }> = [
      { args: ["--token-file", tokenFile], env: {}, token: "f1le-t0ken" },
      { args: [], env: { ARBOR_TOKEN: "env-t0ken" }, token: "env-t0ken" },
    ];
    for (const { args, env, token } of cases) {
      const server = e2e.startArbor(["serve", "--port", "0", "--json", "--cwd", e2e.workspace, ...args], { env });
      const url = await servedUrl(server);
      const cmdline = await readFile(`/proc/${server.child.pid}/cmdline`, "utf8");
      expect(cmdline).not.toContain(token);
      expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
      expect((await fetch(`${url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      server.child.kill("SIGINT");
      expect((await server.result).code).toBe(0);
    }
  });

  it("refuses two token sources, an empty token file, and documents the token sources in --help", async () => {
    const empty = join(e2e.dir, "empty-token");
    await writeFile(empty, "\n");
    const both = await e2e.cli(["serve", "--port", "0", "--token", "a", "--token-file", empty]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not both");
    const blank = await e2e.cli(["serve", "--port", "0", "--token-file", empty]);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("non-empty");
    const missing = await e2e.cli(["serve", "--port", "0", "--token-file", join(e2e.dir, "nosuch")]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("nosuch");
    const help = await e2e.cli(["serve", "--help"]);
    expect(help.stdout).toContain("--token-file");
    expect(help.stdout).toContain("ARBOR_TOKEN");
  });

  it("--host ::ffff:127.0.0.1 prints a URL the server answers", async () => {
    const server = e2e.startArbor(["serve", "--host", "::ffff:127.0.0.1", "--port", "0", "--json", "--cwd", e2e.workspace]);
    const url = await servedUrl(server);
    expect((await fetch(`${url}/api/sessions`)).status).toBe(200);
    server.child.kill("SIGINT");
    expect((await server.result).code).toBe(0);
  });
});

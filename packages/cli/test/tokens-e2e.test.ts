import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { servedUrl } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";

/** `arbor tokens add|list|revoke` and `arbor serve` taking those tokens beside its own. */
const e2e = setupCliE2e("arbor-tokens-e2e-");

describe("arbor tokens", () => {
  it("adds a scoped token shown once, lists without secrets, and serve honours and then refuses it", {
    timeout: 120_000,
  }, async () => {
    const added = await e2e.cli([
      "tokens",
      "add",
      "--scope",
      "read",
      "--project",
      e2e.workspace,
      "--name",
      "dashboard",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const { token, id, scopes, projects } = JSON.parse(added.stdout) as {
      token: string;
      id: string;
      scopes: string[];
      projects: string[];
    };
    expect(token).toMatch(/^arbor_/);
    expect(scopes).toEqual(["read"]);
    expect(projects).toEqual([e2e.workspace]);

    const text = await e2e.cli(["tokens", "add", "--scope", "read,run"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("It is shown only now");

    const list = await e2e.cli(["tokens", "list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`${id}  dashboard`);
    expect(list.stdout).not.toContain(token);
    const listed = await e2e.cli(["tokens", "list", "--json"]);
    expect(listed.stdout).not.toMatch(/hash|arbor_/);
    // The store keeps the hash only.
    const tokensDir = join(e2e.home, "tokens");
    for (const file of readdirSync(tokensDir)) expect(readFileSync(join(tokensDir, file), "utf8")).not.toContain(token);

    const bad = await e2e.cli(["tokens", "add", "--scope", "write"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown scope");

    const adminFile = join(e2e.dir, "admin-token");
    await writeFile(adminFile, "adm1n-t0ken\n", { mode: 0o600 });
    const server = e2e.startArbor(["serve", "--port", "0", "--json", "--cwd", e2e.workspace, "--token-file", adminFile]);
    const url = await servedUrl(server);
    const as = (bearer: string, init: RequestInit = {}) =>
      fetch(`${url}/api/sessions`, {
        ...init,
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      });
    expect((await as("adm1n-t0ken")).status).toBe(200);
    expect((await as(token)).status).toBe(200);
    const refused = await as(token, { method: "POST", body: "{}" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("scope_required");
    expect((await as("arbor_unknown")).status).toBe(401);

    const revoked = await e2e.cli(["tokens", "revoke", id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`Revoked token ${id} (dashboard).\n`);
    expect((await as(token)).status).toBe(401);
    expect((await e2e.cli(["tokens", "revoke", "tok_nosuch"])).code).toBe(2);

    server.child.kill("SIGINT");
    expect((await server.result).code).toBe(0);
  });
});

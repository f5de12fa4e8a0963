import { lstat, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAI, text } from "@arbor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbor, type CliOptions, REPO_ROOT, startArbor } from "./helpers/cli.js";
import { installOffline, PACKED, type Packed, packAll } from "./helpers/packed-install.js";

/**
 * `arbor` as a user gets it: every package `npm pack`ed, the tarballs installed into an empty folder
 * outside the checkout (from npm's cache, with no registry: see helpers/packed-install.ts), and the
 * installed `node_modules/.bin/arbor` run from another empty folder, so nothing of the checkout is found.
 */

let dir: string;
let packed: Map<string, Packed>;
let bin: string;
let fake: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-packed-"));
  packed = await packAll(REPO_ROOT, join(dir, "tarballs"));
  const project = join(dir, "project");
  await installOffline(REPO_ROOT, new Map([...packed].map(([name, p]) => [name, p.tarball])), project);
  bin = join(project, "node_modules", ".bin", "arbor");
  await mkdir(join(dir, "elsewhere"));
  await mkdir(join(dir, "ws"));
  // npm ci of some 250 packages from the cache: well under a minute alone, minutes on a loaded machine.
}, 600_000);

afterAll(async () => {
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The installed `arbor`, run in a folder of its own with the test's Node first on the PATH. */
function opts(extra: Partial<CliOptions> = {}): CliOptions {
  return {
    bin,
    home: join(dir, "home"),
    cwd: join(dir, "elsewhere"),
    env: { PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
    ...extra,
  };
}

const manifest = async (pkg: string) =>
  JSON.parse(await readFile(join(REPO_ROOT, "packages", pkg, "package.json"), "utf8")) as Record<string, unknown>;

describe("the packed packages, installed from their tarballs", () => {
  it("are ready to publish: public, with files, engines and exports, and tarballs holding what runs", async () => {
    for (const pkg of PACKED) {
      const m = await manifest(pkg);
      expect(m.private, pkg).toBeUndefined();
      expect(m.engines, pkg).toEqual({ node: ">=22.12" });
      expect(m.exports, pkg).toBeDefined();
      expect(m.publishConfig, pkg).toEqual({ access: "public" });
    }
    expect((await manifest("cli")).bin).toEqual({ arbor: "./bin/arbor.js" });
    const files = (name: string) => packed.get(name)?.files ?? [];
    expect(files("@arbor/cli")).toEqual(expect.arrayContaining(["bin/arbor.js", "dist/main.js", "package.json"]));
    expect(files("@arbor/core")).toContain("dist/index.js");
    // The inspector ships inside the server: its page and the scripts it loads.
    expect(files("@arbor/server")).toContain("web-dist/index.html");
    expect(files("@arbor/server").some((f) => /^web-dist\/assets\/.+\.js$/.test(f))).toBe(true);
    for (const [name, p] of packed) {
      expect(
        p.files.filter((f) => f.startsWith("test/") || f.startsWith("src/") || f.endsWith(".tsbuildinfo")),
        name,
      ).toEqual([]);
    }
    // Installed as copies, not links back into the checkout.
    expect((await lstat(join(dir, "project", "node_modules", "@arbor", "cli"))).isSymbolicLink()).toBe(false);
  });

  // Each spawns the installed CLI, which loads its packages from the tarballs' copies: slower than the
  // checkout's warm build on a busy machine.
  it("arbor --version prints the CLI's version", { timeout: 120_000 }, async () => {
    const result = await arbor(["--version"], opts());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe((await manifest("cli")).version);
  });

  it("arbor demo runs the recorded coding run into a SQLite store (the native module loads)", { timeout: 120_000 }, async () => {
    const store = `sqlite:${join(dir, "demo.db")}`;
    const demo = await arbor(["demo", "--store", store, "--create"], opts());
    expect(demo.code, demo.stderr).toBe(0);
    const id = /^session ([0-9a-f-]{36})$/m.exec(demo.stdout)?.[1];
    expect(id, demo.stdout).toBeDefined();
    const shown = await arbor(["sessions", "show", id as string, "--store", store, "--json"], opts());
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ session: { id } });
  });

  it("arbor run answers through an OpenAI-compatible server", { timeout: 120_000 }, async () => {
    fake = await startFakeOpenAI({ script: [[text("Hello from the installed arbor")]] });
    const args = ["run", "--model", "openai-compatible/fake", "--base-url", fake.baseURL, "--cwd", join(dir, "ws"), "hi"];
    const result = await arbor(args, opts());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Hello from the installed arbor");
  });

  it("arbor serve answers /api/info and serves the inspector's page and scripts", { timeout: 120_000 }, async () => {
    const server = startArbor(["serve", "--port", "0", "--json", "--model", "openai/gpt-4o"], opts());
    try {
      await server.waitForStdout(/\n$/);
      const { url } = JSON.parse(server.stdout()) as { url: string };
      const info = await fetch(`${url}/api/info`);
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ default_model: "openai/gpt-4o" });
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      const asset = await fetch(new URL(script as string, url));
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(/javascript/);
    } finally {
      server.child.kill("SIGINT");
      expect((await server.result).code).toBe(0);
    }
  });
});

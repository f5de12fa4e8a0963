import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { bubblewrapBackend } from "../../src/sandbox/bubblewrap.js";
import type { SandboxPolicy } from "../../src/sandbox/policy.js";
import { BWRAP, describeSandbox } from "./harness.js";

/** Writes `files` (path → text) under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function runWrapped(command: {
  file: string;
  args: string[];
  env: Record<string, string>;
}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command.file, command.args, { env: command.env, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describeSandbox("a program that lives where the sandbox hides", () => {
  // A workspace checkout under /tmp, which every sandboxed call replaces with a private folder: its
  // package has a node_modules of its own (a dependency at another version than the root's), and
  // imports a package only the workspace root's node_modules holds, as Node resolves upwards.
  it("resolves packages from the workspace root's node_modules, not only the nearest one", async () => {
    const checkout = realpathSync(mkdtempSync(join(tmpdir(), "arbor-hidden-checkout-")));
    const outside = realpathSync(mkdtempSync("/var/tmp/arbor-program-places-"));
    onTestFinished(() => {
      rmSync(checkout, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    });
    writeTree(checkout, {
      "package.json": '{"name":"root","private":true}\n',
      "node_modules/only-at-root/package.json": '{"name":"only-at-root","main":"index.js"}\n',
      "node_modules/only-at-root/index.js": 'module.exports = "from the root";\n',
      "packages/server/package.json": '{"name":"server","type":"module"}\n',
      "packages/server/node_modules/nested/package.json": '{"name":"nested","main":"index.js"}\n',
      "packages/server/node_modules/nested/index.js": 'module.exports = "nested";\n',
      "packages/server/dist/main.js":
        'import root from "only-at-root";\nimport nested from "nested";\nconsole.log(root + " + " + nested);\n',
    });
    const workspace = join(outside, "workspace");
    const tmp = join(outside, "tmp");
    mkdirSync(workspace);
    mkdirSync(tmp);
    const policy: SandboxPolicy = {
      workspace,
      tmp,
      writable: [],
      hidden: [],
      readable: [],
      readOnly: [],
      allowHosts: [],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    };
    const backend = bubblewrapBackend({ bwrap: BWRAP });
    const script = join(checkout, "packages/server/dist/main.js");
    const wrapped = await backend.wrap({ file: process.execPath, args: [script], env: {} }, policy, { cwd: workspace });
    try {
      const result = await runWrapped(wrapped.command);
      expect(result.out).toBe("from the root + nested\n");
      expect(result.code).toBe(0);
      // Only the checkout is given back: the rest of the host's /tmp stays covered by the private one.
      const peek = await backend.wrap({ file: "/bin/sh", args: ["-c", `ls ${tmpdir()}`], env: {} }, policy, { cwd: workspace });
      writeFileSync(join(tmp, "private-marker"), "");
      const listing = await runWrapped(peek.command);
      await peek.release();
      // Beside the marker it shows the mount points of what was given back: the checkout, and Node's
      // own folder when Node too lives under /tmp (a checkout with its toolchain inside, in CI).
      const given = [checkout, process.execPath]
        .filter((path) => path.startsWith(`${tmpdir()}/`))
        .map((path) => relative(tmpdir(), path).split(sep)[0]);
      expect(listing.out.split("\n").filter(Boolean).sort()).toEqual([...new Set([...given, "private-marker"])].sort());
    } finally {
      await wrapped.release();
    }
  });
});

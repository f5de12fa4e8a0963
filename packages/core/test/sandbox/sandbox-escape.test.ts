import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { McpConnection } from "../../src/mcp/connection.js";
import { bubblewrapBackend } from "../../src/sandbox/bubblewrap.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { SandboxSettingsSchema } from "../../src/sandbox/settings.js";
import { bashTool } from "../../src/tools/builtin/bash.js";
import { pythonReplTool } from "../../src/tools/builtin/python-repl.js";
import { PythonRepls } from "../../src/tools/python/python-repls.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { filesystemStdio } from "../mcp/servers.js";
import { fakeContext, tempDir } from "../tools/helpers.js";
import { describeSandbox, ENV_SECRET, type Host, hostFor, SHADOW_LINE } from "./harness.js";

/** Strings no sandboxed process may print: each is a secret of the host or of Arbor. */
const CANARIES = [
  "ssh-private-key-canary",
  "aws-secret-canary",
  "arbor-token-canary",
  ENV_SECRET,
  "CONNECTED",
  SHADOW_LINE,
].filter((c) => c !== "");

let http: Server;
let httpPort = 0;
beforeAll(async () => {
  http = createServer((_req, res) => res.end("CONNECTED"));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  httpPort = (http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** Processes whose command line holds `marker`, anywhere on the host. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) found.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The attacks a model could write in bash, each aimed at one thing the sandbox must keep. */
function bashAttacks(host: Host): Record<string, string> {
  const { outside, arborHome, home } = host;
  return {
    "absolute write": `echo pwned > ${outside}/victim.txt; echo pwned > ${outside}/new.txt; echo pwned > /etc/arbor-escape`,
    "write through ..": `echo pwned > ../outside/victim.txt; cd .. && echo pwned > outside/new.txt`,
    "symlink made inside": `ln -s ${outside} out && echo pwned > out/victim.txt; ln -s /etc/passwd pw && echo pwned >> pw`,
    "hard link": `ln ${outside}/victim.txt hl && echo pwned >> hl; ln /etc/passwd hl2 && echo pwned >> hl2`,
    "bind tricks": `mkdir -p m && mount --bind ${outside} m && echo pwned > m/victim.txt; unshare -rm sh -c 'mount -o remount,rw / && echo pwned > /etc/arbor-escape; mount --bind ${outside} m && echo pwned > m/victim.txt'`,
    ".git tampering":
      "echo 'exit 0' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; git config core.hooksPath /tmp/h; echo '[core] pwned = 1' >> .git/config; rm -rf .git/refs",
    "arbor.json and .env": "echo '{}' > arbor.json; echo PWNED=1 >> .env; rm -f arbor.json .env; mv .env e",
    "read ssh and cloud credentials": `cat ${home}/.ssh/id_ed25519 ${home}/.aws/credentials ~/.ssh/* /root/.ssh/* 2>&1; ls -la ${home} /root /home 2>&1`,
    "read /etc/shadow": "cat /etc/shadow /etc/gshadow 2>&1",
    "Arbor's token file and store": `cat ${arborHome}/token 2>&1; ls -R ${arborHome} 2>&1; cat ${arborHome}/arbor.db ${arborHome}/sessions/* 2>&1 | head -c 2000`,
    "environment secrets": "env; cat /proc/self/environ | tr '\\0' '\\n'",
    "server's /proc environ": `cat /proc/${process.pid}/environ 2>&1; cat /proc/1/environ 2>&1 | tr '\\0' '\\n' | grep -v '^PATH='; ls /proc | grep -c '^[0-9]'`,
    "local PostgreSQL":
      "(exec 3<>/dev/tcp/127.0.0.1/5432 && echo CONNECTED) 2>&1; ls /run/postgresql /var/run/postgresql /tmp/.s.PGSQL.5432 2>&1",
    "local HTTP server": `(exec 3<>/dev/tcp/127.0.0.1/${httpPort} && echo CONNECTED) 2>&1; curl -s -m 3 http://127.0.0.1:${httpPort}/ 2>&1`,
    "workspace stays writable": "echo kept > made-in-sandbox.txt && cat made-in-sandbox.txt",
  };
}

for (const storeKind of ["file", "sqlite"] as const) {
  describeSandbox(`sandbox escapes are blocked (${storeKind} store)`, () => {
    it("bash: every attack leaves the host unchanged and reveals nothing; walls are asked about, and refused", async () => {
      const host = await hostFor(storeKind);
      const before = host.fingerprint();
      const registry = new ToolRegistry().register(bashTool({ sandbox: host.sandbox, killGraceMs: 200 }));
      const ctx = fakeContext(host.workspace, { answer: (r) => (r.permission === "sandbox" ? "reject" : "allow") });
      const outputs: Record<string, string> = {};
      for (const [name, command] of Object.entries(bashAttacks(host))) {
        const result = await registry.invoke("bash", { command, timeout: 20_000 }, ctx);
        outputs[name] = result.output;
        expect(result.metadata, name).toMatchObject({ sandboxed: true });
      }
      for (const [name, output] of Object.entries(outputs)) {
        for (const canary of CANARIES) expect(output, `${name} revealed ${canary}`).not.toContain(canary);
      }
      expect(host.fingerprint()).toEqual(before);
      expect(readFileSync(join(host.workspace, "made-in-sandbox.txt"), "utf8")).toBe("kept\n");
      // Its /proc shows only its own few processes.
      expect(outputs["server's /proc environ"]).toMatch(/\n[1-9]\n\n\[exit code: 0\]$/);
      // The write to /etc hit the read-only wall: asked, refused, and the model was told.
      expect(ctx.asks).toContainEqual(expect.objectContaining({ permission: "sandbox", patterns: ["write /etc"] }));
      expect(outputs["absolute write"]).toContain("[Arbor sandbox: writing outside the workspace is blocked");
      await host.store.close();
    });

    it("bash: a host not on the allowlist is refused by the proxy, reported, and asked about", async () => {
      const host = await hostFor(storeKind, { network: { allow: ["registry.npmjs.org"] } });
      const registry = new ToolRegistry().register(bashTool({ sandbox: host.sandbox }));
      const ctx = fakeContext(host.workspace, { answer: (r) => (r.permission === "sandbox" ? "reject" : "allow") });
      const result = await registry.invoke(
        "bash",
        { command: `curl -sS -m 5 http://127.0.0.1:${httpPort}/ 2>&1; curl -sS -m 5 https://evil.example/ 2>&1; echo done` },
        ctx,
      );
      expect(result.output).not.toContain("CONNECTED");
      expect(result.output).toContain("[Arbor sandbox: connections refused to 127.0.0.1, evil.example");
      expect(result.metadata).toMatchObject({ refusedHosts: ["127.0.0.1", "evil.example"] });
      expect(ctx.asks.filter((a) => a.permission === "sandbox").map((a) => a.patterns[0])).toEqual([
        "network 127.0.0.1",
        "network evil.example",
      ]);
      await host.store.close();
    });

    it("bash: a fork bomb ends with the call and nothing it started is left behind", async () => {
      const host = await hostFor(storeKind);
      const sandbox = new Sandbox({
        settings: SandboxSettingsSchema.parse({ mode: "required" }),
        arborHome: host.arborHome,
        home: host.home,
        backend: bubblewrapBackend({ maxProcesses: 128 }),
      });
      const registry = new ToolRegistry().register(bashTool({ sandbox, killGraceMs: 200 }));
      const ctx = fakeContext(host.workspace);
      const marker = `arbor-left-${process.pid}-${storeKind}`;
      const left = await registry.invoke(
        "bash",
        { command: `(exec -a ${marker} sleep 300) & setsid bash -c 'exec -a ${marker} sleep 300' & disown -a; echo started` },
        ctx,
      );
      expect(left.output).toContain("started");
      expect(processesWith(marker)).toEqual([]);
      const bombMarker = `arbor-bomb-${process.pid}-${storeKind}`;
      const bomb = await registry.invoke(
        "bash",
        { command: `${bombMarker}(){ ${bombMarker}|${bombMarker}& }; ${bombMarker}; sleep 2`, timeout: 3000 },
        ctx,
      );
      expect(bomb.isError).toBe(false);
      expect(processesWith(bombMarker)).toEqual([]);
      await host.store.close();
    });

    it("python_repl: the same walls hold", async () => {
      const host = await hostFor(storeKind);
      const before = host.fingerprint();
      const repls = new PythonRepls({ sandbox: host.sandbox });
      const registry = new ToolRegistry().register(pythonReplTool({ repls }));
      const ctx = fakeContext(host.workspace);
      const marker = `arbor-py-left-${process.pid}-${storeKind}`;
      const attacks = [
        `open(${JSON.stringify(join(host.outside, "victim.txt"))}, "w").write("pwned")`,
        `open("../outside/new.txt", "w").write("pwned")`,
        `open(".git/config", "a").write("[core]\\n\\tpwned = 1\\n")`,
        `open("arbor.json", "w").write("{}")`,
        `import os; os.symlink(${JSON.stringify(host.outside)}, "out"); open("out/victim.txt", "w").write("pwned")`,
        `print(open(${JSON.stringify(join(host.home, ".ssh", "id_ed25519"))}).read())`,
        `print(open(${JSON.stringify(join(host.arborHome, "token"))}).read())`,
        `print(open("/etc/shadow").read())`,
        `import os; print(dict(os.environ))`,
        `print(open("/proc/${process.pid}/environ").read())`,
        `import socket; s = socket.create_connection(("127.0.0.1", 5432), timeout=2); print("CONNECTED")`,
        `import socket; s = socket.create_connection(("127.0.0.1", ${httpPort}), timeout=2); print("CONNECTED")`,
        `import subprocess; subprocess.Popen(["bash", "-c", "exec -a ${marker} sleep 300"], start_new_session=True); print("started")`,
        `open("made-by-python.txt", "w").write("kept")`,
      ];
      const outputs: string[] = [];
      for (const code of attacks) outputs.push((await registry.invoke("python_repl", { code }, ctx)).output);
      for (const output of outputs) for (const canary of CANARIES) expect(output).not.toContain(canary);
      expect(outputs.at(-2)).toContain("started");
      repls.closeAll();
      await expect.poll(() => processesWith(marker), { timeout: 10_000 }).toEqual([]);
      expect(host.fingerprint()).toEqual(before);
      expect(readFileSync(join(host.workspace, "made-by-python.txt"), "utf8")).toBe("kept");
      await host.store.close();
    });

    it("a stdio MCP server: the same walls hold", async () => {
      const host = await hostFor(storeKind);
      const before = host.fingerprint();
      const connection = new McpConnection("fs", filesystemStdio("/"), () => {}, {
        sandbox: host.sandbox,
        workspace: host.workspace,
      });
      const signal = new AbortController().signal;
      const call = async (tool: string, args: Record<string, unknown>) => {
        const result = await connection
          .callTool(tool, args, { signal })
          .catch((err: Error) => ({ content: [{ type: "text", text: err.message }] }));
        return JSON.stringify(result);
      };
      try {
        const outputs = [
          await call("write_file", { path: join(host.outside, "victim.txt"), content: "pwned" }),
          await call("write_file", { path: join(host.workspace, ".git", "config"), content: "pwned" }),
          await call("write_file", { path: join(host.workspace, "arbor.json"), content: "{}" }),
          await call("read_text_file", { path: join(host.home, ".ssh", "id_ed25519") }),
          await call("read_text_file", { path: join(host.arborHome, "token") }),
          await call("read_text_file", { path: "/etc/shadow" }),
          await call("read_text_file", { path: `/proc/${process.pid}/environ` }),
          await call("write_file", { path: join(host.workspace, "made-by-mcp.txt"), content: "kept" }),
        ];
        for (const output of outputs) for (const canary of CANARIES) expect(output).not.toContain(canary);
        expect(readFileSync(join(host.workspace, "made-by-mcp.txt"), "utf8")).toBe("kept");
        expect(host.fingerprint()).toEqual(before);
      } finally {
        await connection.close();
        await host.store.close();
      }
    });
  });
}

describeSandbox("sandbox modes", () => {
  it("required refuses to run without a backend; auto runs unconfined and says so once", async () => {
    const cwd = tempDir();
    const missing = bubblewrapBackend({ bwrap: "/nonexistent/bwrap" });
    const settings = (mode: string) => SandboxSettingsSchema.parse({ mode });
    const required = new Sandbox({ settings: settings("required"), arborHome: tempDir(), backend: missing });
    const registry = (sandbox: Sandbox) => new ToolRegistry().register(bashTool({ sandbox }));
    const refused = await registry(required).invoke("bash", { command: "echo ran" }, fakeContext(cwd));
    expect(refused).toMatchObject({ isError: true });
    expect(refused.output).toContain('sandbox.mode is "required"');
    expect(refused.output).not.toContain("ran\n");
    const auto = registry(new Sandbox({ settings: settings("auto"), arborHome: tempDir(), backend: missing }));
    const first = await auto.invoke("bash", { command: "echo ran" }, fakeContext(cwd));
    const second = await auto.invoke("bash", { command: "echo ran" }, fakeContext(cwd));
    expect(first.output).toContain("WITHOUT a sandbox");
    expect(first.output).toContain("apt-get install bubblewrap");
    expect(second.output).not.toContain("WITHOUT a sandbox");
    expect(second.metadata).toMatchObject({ sandboxed: false });
  });
});

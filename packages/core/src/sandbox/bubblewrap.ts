import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { access, constants, lstat, mkdir, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pathExists } from "../file-system.js";
import type { Availability, SandboxBackend, Wrapped } from "./backend.js";

/** The port the egress proxy answers on inside the sandbox's own network namespace. */
export const PROXY_PORT = 3128;

export interface BubblewrapOptions {
  /** Default "bwrap" (found on the PATH). */
  bwrap?: string;
  /** Default "socat": bridges the proxy's unix socket to a port inside the sandbox. */
  socat?: string;
  /**
   * Processes one call may have at once (a fork bomb stops there), through a cgroup-v1 `pids`
   * controller Arbor can write (as root, or delegated); without one the count is not capped and a
   * bomb runs until the call's timeout ends the whole PID namespace. Default 512.
   */
  maxProcesses?: number;
  /** The pids controller's folder. Default /sys/fs/cgroup/pids. */
  pidsCgroup?: string;
}

const INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap socat; Fedora: dnf install bubblewrap socat)";

/**
 * Linux namespaces through bubblewrap: a read-only view of the host, the workspace and a private
 * temp folder writable, secrets hidden, a PID namespace ended with the call (`--die-with-parent`,
 * `--unshare-pid`), no network namespace shared with the host, every capability dropped and
 * NO_NEW_PRIVS set (bubblewrap always sets it), the environment replaced.
 */
export function bubblewrapBackend(options: BubblewrapOptions = {}): SandboxBackend {
  const bwrap = options.bwrap ?? "bwrap";
  const socat = options.socat ?? "socat";
  const maxProcesses = options.maxProcesses ?? 512;
  const pidsRoot = options.pidsCgroup ?? "/sys/fs/cgroup/pids";
  return {
    name: "bubblewrap",
    async availability(): Promise<Availability> {
      const probe = await run(bwrap, ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--dev", "/dev", "true"]);
      if (probe !== undefined) return { available: false, reason: `bubblewrap cannot run here (${probe})`, install: INSTALL };
      const version = await output(bwrap, ["--version"]);
      return { available: true, detail: version.trim() || "bubblewrap" };
    },
    async wrap(inner, policy, where): Promise<Wrapped> {
      const egressSocket = where.egressSocket;
      const args = [
        "--die-with-parent",
        "--unshare-all",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
      ];
      for (const path of policy.hidden) args.push(...(await hide(path)));
      args.push("--bind", policy.tmp, "/tmp");
      for (const path of policy.readable) if (await pathExists(path)) args.push("--ro-bind", path, path);
      // The program itself (and the package it runs, an MCP server's script say) stays reachable when
      // it lives where the sandbox hides (a checkout under /tmp, a toolchain in the home folder): read-only.
      const programRoots = await programPlaces(inner, policy.hidden);
      for (const path of programRoots) args.push("--ro-bind", path, path);
      args.push("--bind", policy.workspace, policy.workspace);
      for (const path of policy.writable) if (await pathExists(path)) args.push("--bind", path, path);
      for (const path of policy.readOnly) if (await pathExists(path)) args.push("--ro-bind", path, path);
      // A hidden place inside a writable one (Arbor's home or the store in the workspace) is hidden again on top.
      const opened = [policy.workspace, ...policy.writable, ...policy.readable, ...programRoots];
      for (const path of policy.hidden) {
        if (opened.some((root) => path !== root && within(path, root))) args.push(...(await hide(path)));
      }
      args.push("--clearenv");
      const inside = { ...policy.env, ...inner.env, HOME: "/tmp", TMPDIR: "/tmp" };
      if (egressSocket) {
        const url = `http://127.0.0.1:${PROXY_PORT}`;
        Object.assign(inside, { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url });
        // The socket is reached through its folder, bound at a fixed place in the sandbox.
        args.push("--ro-bind", dirname(egressSocket), "/run/arbor-egress");
      }
      for (const [key, value] of Object.entries(inside)) args.push("--setenv", key, value);
      args.push("--chdir", where.cwd);
      const program = egressSocket
        ? [
            "/bin/bash",
            "-c",
            // The bridge runs beside the command and dies with the PID namespace when the command ends.
            `${socat} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/arbor-egress/${basename(egressSocket)} 2>/dev/null & ` +
              `i=0; while [ $i -lt 200 ] && ! (exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null; do i=$((i+1)); sleep 0.01; done 2>/dev/null; exec "$@"`,
            "sh",
            inner.file,
            ...inner.args,
          ]
        : [inner.file, ...inner.args];
      const env = { PATH: policy.env.PATH ?? "/usr/bin:/bin" };
      const cgroup = await pidsCgroup(pidsRoot, maxProcesses);
      if (!cgroup) return { command: { file: bwrap, args: [...args, "--", ...program], env }, release: async () => {} };
      // The shell joins the cgroup before it becomes bwrap, so everything inside is counted from the start.
      const enter = 'echo $$ > "$0/cgroup.procs" && exec "$@"';
      return {
        command: { file: "/bin/sh", args: ["-c", enter, cgroup, bwrap, ...args, "--", ...program], env },
        release: () => removeCgroup(cgroup),
      };
    },
  };
}

/** What puts `path` out of sight: an empty folder over a folder, the null device over a file. */
async function hide(path: string): Promise<string[]> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) return [];
  if (info.isSymbolicLink()) return [];
  return info.isDirectory() ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path];
}

/** Scripts an interpreter is given (an MCP server's `node server.js`): their package is the program's too. */
const SCRIPT = /\.(c|m)?(j|t)s$|\.py$/;
/** Where keys and credentials live: never bound back, whatever asks for it. */
const SECRET = /\/\.(ssh|aws|gnupg|azure|kube|docker|config\/gcloud)(\/|$)/;

/**
 * The places a command's program (its file, and a script file it is given) must be read from when
 * it lives where the sandbox hides (a checkout under /tmp, a toolchain in the home folder): the
 * outermost folder above it holding a `node_modules` that is not itself hidden (Node resolves a
 * package from every `node_modules` on the way up, so a workspace's package with a `node_modules` of
 * its own still needs the workspace root's), else the nearest holding a `package.json`, else its own
 * folder; never a folder that is or holds a hidden place, and never a path that looks like a key
 * store. Other arguments (folders, data files) are not exposed.
 */
async function programPlaces(inner: { file: string; args: readonly string[] }, hidden: readonly string[]): Promise<string[]> {
  const places = new Set<string>();
  const files = [inner.file, ...inner.args.filter((a) => SCRIPT.test(a))];
  // Never `/tmp` itself: bound back read-only, the host's /tmp would cover the call's private one.
  const safe = (dir: string) => dir !== "/" && dir !== "/tmp" && !hidden.some((h) => within(h, dir));
  for (const file of files) {
    if (!file.startsWith("/") || SECRET.test(file)) continue;
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() && !info?.isSymbolicLink()) continue;
    const own = dirname(file);
    if (!safe(own)) continue;
    let chosen: string | undefined;
    let withPackage: string | undefined;
    for (let dir = own; safe(dir); dir = dirname(dir)) {
      if (await pathExists(join(dir, "node_modules"))) chosen = dir;
      else if (withPackage === undefined && (await pathExists(join(dir, "package.json")))) withPackage = dir;
    }
    places.add(chosen ?? withPackage ?? own);
  }
  return [...places];
}

function run(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000 }, (err, _stdout, stderr) => resolve(err ? stderr.trim() || err.message : undefined));
  });
}

function output(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => execFile(file, args, { timeout: 10_000 }, (_err, stdout) => resolve(String(stdout))));
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** A fresh pids cgroup capped at `max`, or undefined where none can be made. */
async function pidsCgroup(root: string, max: number): Promise<string | undefined> {
  try {
    await access(join(root, "cgroup.procs"), constants.W_OK);
    const dir = join(root, `arbor-sandbox-${randomUUID()}`);
    await mkdir(dir);
    await writeFile(join(dir, "pids.max"), String(max));
    return dir;
  } catch {
    return undefined;
  }
}

/** Removes the cgroup once its processes are gone (the PID namespace ends with the call; a zombie may linger a moment). */
async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

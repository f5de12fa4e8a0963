import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The packages `arbor` is made of, in the order they depend on each other. */
export const PACKED = ["core", "testkit", "server", "cli"] as const;

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  optional?: boolean;
  [key: string]: unknown;
}

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

/** A package as `npm pack` made it: its tarball and the files in it. */
export interface Packed {
  tarball: string;
  files: string[];
}

/** `npm pack`s the packages of the checkout at `root` into `dest`, by package name. */
export async function packAll(root: string, dest: string): Promise<Map<string, Packed>> {
  await mkdir(dest, { recursive: true });
  const args = ["pack", "--json", "--pack-destination", dest, ...PACKED.flatMap((p) => ["-w", `packages/${p}`])];
  const { stdout } = await run("npm", args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const packed = JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[];
  return new Map(packed.map((p) => [p.name, { tarball: join(dest, basename(p.filename)), files: p.files.map((f) => f.path) }]));
}

/**
 * A lockfile for a project that depends on nothing but the tarballs, so `npm ci --offline` installs it
 * from npm's cache (filled by the checkout's own `npm install`) without asking the registry: a fresh
 * `npm install <tarballs>` would fetch every dependency's metadata. Each third-party package is pinned to
 * the version and place the checkout's lockfile gives it; the workspace folders (packages/core, …) become
 * the tarballs' places under node_modules/@arbor.
 */
export async function lockfileFor(root: string, tarballs: Map<string, string>, project: string): Promise<object> {
  const registry = (await run("npm", ["config", "get", "registry"], { cwd: root })).stdout.trim().replace(/\/+$/, "");
  const lock = JSON.parse(await readFile(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const workspace = lock.packages;
  const toProject = new Map<string, string>(); // workspace folder -> place in the project
  const fromProject = new Map<string, string>();
  for (const name of tarballs.keys()) {
    const link = workspace[`node_modules/${name}`];
    if (!link?.link || typeof link.resolved !== "string") throw new Error(`${name} is not a workspace package`);
    toProject.set(link.resolved, `node_modules/${name}`);
    fromProject.set(`node_modules/${name}`, link.resolved);
  }
  const place = (workspaceLocation: string): string => {
    for (const [from, to] of toProject) {
      if (workspaceLocation === from || workspaceLocation.startsWith(`${from}/`))
        return to + workspaceLocation.slice(from.length);
    }
    return workspaceLocation;
  };
  /** Where Node finds `name` from the package at workspace location `at`: the nearest node_modules upward. */
  const resolve = (at: string, name: string): string | undefined => {
    for (let dir = at; ; ) {
      const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (workspace[candidate]) return candidate;
      if (dir === "") return undefined;
      const cut = dir.lastIndexOf("/node_modules/");
      dir = cut >= 0 ? dir.slice(0, cut) : "";
    }
  };

  const packages: Record<string, LockEntry> = {};
  const rootDeps: Record<string, string> = {};
  const queue: string[] = []; // workspace locations whose dependencies still need placing
  for (const [name, tarball] of tarballs) {
    const pkgLocation = fromProject.get(`node_modules/${name}`) as string;
    const manifest = JSON.parse(await readFile(join(root, pkgLocation, "package.json"), "utf8")) as PackageJson;
    const spec = `file:${tarball}`;
    rootDeps[name] = spec;
    packages[`node_modules/${name}`] = {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash("sha512")
        .update(await readFile(tarball))
        .digest("base64")}`,
      ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
      ...(manifest.bin ? { bin: manifest.bin } : {}),
      ...(manifest.engines ? { engines: manifest.engines } : {}),
    };
    queue.push(pkgLocation);
  }
  const seen = new Set<string>();
  while (queue.length > 0) {
    const at = queue.shift() as string;
    const entry = workspace[at];
    if (!entry) throw new Error(`the lockfile has no ${at}`);
    const optionalPeers = new Set(
      Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    );
    const needed = [
      ...Object.keys(entry.dependencies ?? {}).map((name) => ({ name, optional: false })),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
      ...Object.keys(entry.peerDependencies ?? {})
        .filter((name) => !optionalPeers.has(name))
        .map((name) => ({ name, optional: false })),
    ];
    for (const dep of needed) {
      const found = resolve(at, dep.name);
      if (!found) {
        if (dep.optional) continue; // another platform's build, left out of the checkout's install
        throw new Error(`${at} needs ${dep.name}, which the lockfile does not place`);
      }
      const target = workspace[found];
      if (target?.link) continue; // one of the tarballs
      if (seen.has(found)) continue;
      seen.add(found);
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = target as LockEntry;
      // Without a tarball address npm asks the registry for the package's metadata to find one.
      packages[place(found)] = { ...kept, resolved: kept.resolved ?? tarballUrl(registry, found, kept) };
      queue.push(found);
    }
  }
  return {
    name: basename(project),
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: basename(project), dependencies: rootDeps }, ...packages },
  };
}

/** The registry's address of a package's tarball, as npm writes it into a lockfile. */
function tarballUrl(registry: string, location: string, entry: LockEntry): string {
  const name = typeof entry.name === "string" ? entry.name : location.slice(location.lastIndexOf("node_modules/") + 13);
  const file = name.slice(name.lastIndexOf("/") + 1);
  return `${registry}/${name}/-/${file}-${entry.version}.tgz`;
}

/** An empty project at `project` depending on the tarballs, installed from npm's cache alone. */
export async function installOffline(root: string, tarballs: Map<string, string>, project: string): Promise<void> {
  await mkdir(project, { recursive: true });
  const lockfile = await lockfileFor(root, tarballs, project);
  const dependencies = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]));
  await writeFile(
    join(project, "package.json"),
    `${JSON.stringify({ name: basename(project), private: true, dependencies }, null, 2)}\n`,
  );
  await writeFile(join(project, "package-lock.json"), `${JSON.stringify(lockfile, null, 2)}\n`);
  try {
    await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? err);
    const missing = /ENOTCACHED[\s\S]*?request to (\S+) failed/.exec(stderr)?.[1];
    if (missing) {
      throw new Error(
        `npm's cache has no ${missing}: run \`npm install\` in the checkout (it fills the cache this install reads), then the test again.`,
      );
    }
    throw err;
  }
}

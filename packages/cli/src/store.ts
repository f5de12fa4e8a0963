import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ArborError, isArborError, openStore, type Store, type StoreSpec } from "@arbor/core/open";
import { flag, type OptionValues, stringOption } from "./args.js";
import { StoreUnavailableError } from "./errors.js";
import type { Io } from "./io.js";

export interface ResolvedStore {
  spec: StoreSpec;
  /** Named by `--store` or `ARBOR_STORE`, not the default: a path it names must exist unless `--create`. */
  explicit: boolean;
  /** How the store is named in messages: `file store /home/me/.arbor`; never shows a password. */
  label: string;
}

/** Hides the password of a database URL. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
  }
}

export function describeStore(spec: StoreSpec): string {
  switch (spec.kind) {
    case "file":
      return `file store ${resolve(spec.dir)}`;
    case "sqlite":
      return `sqlite store ${spec.file === ":memory:" ? spec.file : resolve(spec.file)}`;
    case "mysql":
    case "postgres":
      return `${spec.kind} store ${redactUrl(spec.url)}`;
  }
}

/** `$ARBOR_HOME`, else `~/.arbor`: the default store, user settings, skills and saved tool outputs. */
export function arborHomeOf(io: Pick<Io, "env" | "homedir">): string {
  return io.env.ARBOR_HOME ? io.env.ARBOR_HOME : join(io.homedir, ".arbor");
}

/**
 * `--store`, else `ARBOR_STORE`, else the file store in `ARBOR_HOME`, else `~/.arbor`. An empty
 * value counts as unset. Throws ArborError `invalid_store_spec` for a spec that cannot be used.
 */
export async function resolveStore(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
): Promise<ResolvedStore> {
  const given = flag ?? (env.ARBOR_STORE ? env.ARBOR_STORE : undefined);
  // Core's store entry (and the schemas behind it) loads only to parse a spec that was given.
  const spec: StoreSpec =
    given !== undefined
      ? (await import("@arbor/core/store")).parseStoreSpec(given)
      : { kind: "file", dir: arborHomeOf({ env, homedir }) };
  return { spec, label: describeStore(spec), explicit: given !== undefined };
}

/**
 * A store path the user named must exist: a typo (`--store ./sesions`) would otherwise open a new,
 * empty store and every session would seem gone. `--create` makes a new one on purpose.
 */
function requireExisting(resolved: ResolvedStore, create: boolean): void {
  if (!resolved.explicit || create) return;
  const path =
    resolved.spec.kind === "file" ? resolved.spec.dir : resolved.spec.kind === "sqlite" ? resolved.spec.file : undefined;
  if (path === undefined || path === ":memory:" || existsSync(path)) return;
  throw new ArborError(
    "invalid_store_spec",
    `The ${resolved.label} does not exist. Check the path, or add --create to make a new store there.`,
  );
}

/**
 * A file store with no options as the text `file:<dir>`: core opens a spec string without loading the
 * schema it checks spec objects with, a good part of a short command's start-up. Anything else (options,
 * or a directory whose name a spec string would trim) stays an object.
 */
function asText(spec: StoreSpec): string | StoreSpec {
  const plain = spec.kind === "file" && Object.keys(spec).length === 2 && spec.dir.trim() === spec.dir;
  return plain ? `file:${spec.dir}` : spec;
}

/** Opens the store; a failure to reach it names the store and is not a stack trace. */
export async function openResolvedStore(resolved: ResolvedStore, create = false): Promise<Store> {
  requireExisting(resolved, create);
  try {
    return await openStore(asText(resolved.spec), { createDatabase: create });
  } catch (err) {
    if (isArborError(err)) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreUnavailableError(`Cannot open the ${resolved.label}: ${reason}`, { cause: err });
  }
}

/**
 * Opens the store `--store` (with `--create`) names (else the environment's, else the default), runs `fn` with it and
 * closes it. A failure of `fn` is the one reported; a failure to close after it would only hide it.
 */
export async function withStore<T>(
  io: Io,
  values: OptionValues,
  fn: (store: Store, resolved: ResolvedStore) => Promise<T>,
): Promise<T> {
  const resolved = await resolveStore(stringOption(values, "store"), io.env, io.homedir);
  const store = await openResolvedStore(resolved, flag(values, "create"));
  let result: T;
  try {
    result = await fn(store, resolved);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  await store.close();
  return result;
}

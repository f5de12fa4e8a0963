import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { ArborError } from "@arbor/core/open";
import type { Io } from "./io.js";

const USER_PATH_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
};

/** A file-system error on a path the user gave becomes an input error (exit 2) that names the path. */
function pathError(err: unknown, action: string, path: string, advice: string): unknown {
  const code = (err as { code?: string }).code;
  const reason = code !== undefined ? USER_PATH_ERRORS[code] : undefined;
  if (reason === undefined) return err;
  return new ArborError("invalid_input", `Cannot ${action} ${path}: ${reason}. ${advice}`);
}

/** The text of `path`, or of stdin for `-`. */
export async function readInput(io: Io, path: string, advice: string): Promise<string> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw pathError(err, "read", path, advice);
  }
}

/**
 * Writes `text` to `path` through a temporary file in the same directory and a rename, so a reader
 * (or a crash) never sees half a file.
 */
export async function writeOutputAtomically(path: string, text: string, advice: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, text, { encoding: "utf8", flag: "wx" });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw pathError(err, "write", path, advice);
  }
}

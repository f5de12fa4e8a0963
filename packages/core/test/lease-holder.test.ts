import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { holderAlive, type LeaseHolder, newHolder } from "../src/store/lease.js";

/**
 * Whether a lease's holder still lives: on this host its process must exist and be the process that
 * took the lease, not a later one that reused its pid (a server restarted in a container gets the
 * pid its dead predecessor had); on another host only expiry tells.
 */

const later = Date.now() + 60_000;
const like = (over: Partial<LeaseHolder>): LeaseHolder => ({ ...newHolder("a test"), ...over });
const linux = existsSync("/proc/self/stat");

describe("holderAlive", () => {
  it("this process's own holder lives until it expires", () => {
    expect(holderAlive(newHolder("a test"), later)).toBe(true);
    expect(holderAlive(newHolder("a test"), Date.now() - 1)).toBe(false);
  });

  it("a holder with this process's pid but another process's stamp died: the pid was reused", () => {
    expect(holderAlive(like({ process: "an earlier process" }), later)).toBe(false);
    // A lease of an older version names no stamp: the pid alone decides, as before.
    expect(holderAlive(like({ process: undefined }), later)).toBe(true);
  });

  it("a holder whose pid is gone died", () => {
    expect(holderAlive(like({ pid: 2 ** 22 + 7, process: undefined }), later)).toBe(false);
  });

  it.runIf(linux)("a live pid started after the holder (another stamp) is not the holder", () => {
    expect(holderAlive(like({ pid: process.ppid, process: undefined }), later)).toBe(true);
    expect(holderAlive(like({ pid: process.ppid, process: "an earlier process" }), later)).toBe(false);
  });

  it("another host's holder lives until it expires, whatever its pid", () => {
    const elsewhere = like({ host: `${hostname()}-elsewhere`, pid: 2 ** 22 + 7 });
    expect(holderAlive(elsewhere, later)).toBe(true);
    expect(holderAlive(elsewhere, Date.now() - 1)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { hashToken, newToken } from "../../src/auth/tokens.js";
import { type MakeHarness, twoInstancesPerTest } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

/** API tokens kept in the store: hashes only, seen and revoked by every process at once. */
export function tokensSuite(makeHarness: MakeHarness): void {
  describe("tokens", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = twoInstancesPerTest(makeHarness);

    it("a token added by one process is found by its hash in another, listed without it, and revoked everywhere", async () => {
      expect(await h.store.tokens.list()).toEqual([]);
      const reader = newToken({ scopes: ["read"], projects: ["/work/a"], name: "ci", now: new Date("2026-01-01T00:00:00Z") });
      const runner = newToken({ scopes: ["read", "run"], now: new Date("2026-01-02T00:00:00Z") });
      await h.store.tokens.add(runner.record);
      await h.store.tokens.add(reader.record);

      const found = await h.other.tokens.findByHash(hashToken(reader.token));
      expect(found).toEqual(reader.record);
      expect(await h.other.tokens.findByHash(hashToken("arbor_not-a-token"))).toBeUndefined();
      const listed = await h.other.tokens.list();
      expect(listed.map((t) => t.id)).toEqual([reader.record.id, runner.record.id]);
      // Nothing stored holds the token itself.
      expect(JSON.stringify(listed)).not.toContain(reader.token);

      const at = "2026-02-01T00:00:00.000Z";
      const revoked = await h.other.tokens.revoke(runner.record.id, at);
      expect(revoked.revokedAt).toBe(at);
      expect((await h.store.tokens.findByHash(hashToken(runner.token)))?.revokedAt).toBe(at);
      // A second revoke changes nothing.
      expect((await h.store.tokens.revoke(runner.record.id, "2027-01-01T00:00:00.000Z")).revokedAt).toBe(at);
      expect((await (await h.reopen()).tokens.list()).map((t) => t.revokedAt)).toEqual([undefined, at]);
    });

    it("refuses a bad record, a taken id and an unknown id, changing nothing", async () => {
      const made = newToken({ scopes: ["admin"] });
      await h.store.tokens.add(made.record);
      await expectCode(h.store.tokens.add(made.record), "invalid_input");
      await expectCode(h.store.tokens.add({ ...made.record, id: "tok_other", hash: "not-hex" }), "invalid_input");
      await expectCode(h.store.tokens.add({ ...newToken({ scopes: ["read"] }).record, scopes: [] }), "invalid_input");
      await expectCode(h.store.tokens.revoke("tok_missing", new Date().toISOString()), "token_not_found");
      expect((await h.store.tokens.list()).map((t) => t.id)).toEqual([made.record.id]);
    });
  });
}

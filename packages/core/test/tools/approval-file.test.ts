import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addToApprovalFile,
  approvalFilePath,
  readApprovalFile,
  removeFromApprovalFile,
} from "../../src/permissions/approval-file.js";
import { isApproved } from "../../src/permissions/approvals.js";
import { tempDir } from "./helpers.js";

const now = new Date("2026-11-26T00:00:00Z");

describe("durable approvals", () => {
  it("a project approval is kept once per agent, permission and pattern, and removed by id", () => {
    const places = { workspace: tempDir(), home: tempDir() };
    const approval = { agent: "build", permission: "bash", pattern: "npm test" };
    const first = addToApprovalFile("project", places, approval, now);
    expect(addToApprovalFile("project", places, approval, now)).toEqual(first);
    expect(readApprovalFile("project", places)).toEqual([{ ...approval, id: first.id, scope: "project" }]);
    expect(readApprovalFile("global", places)).toEqual([]);
    expect(removeFromApprovalFile("project", places, "apr_other")).toBe(false);
    expect(removeFromApprovalFile("project", places, first.id)).toBe(true);
    expect(readApprovalFile("project", places)).toEqual([]);
  });

  it("a damaged file is an error naming it, never read as empty nor written over", () => {
    const places = { workspace: tempDir(), home: tempDir() };
    const file = approvalFilePath("project", places);
    mkdirSync(join(places.workspace, ".arbor"));
    for (const bad of ["{not json", JSON.stringify({ version: 1, approvals: [{ agent: "build" }] })]) {
      writeFileSync(file, bad);
      expect(() => readApprovalFile("project", places)).toThrow(expect.objectContaining({ code: "invalid_config" }));
      expect(() => addToApprovalFile("project", places, { agent: "a", permission: "bash", pattern: "ls" }, now)).toThrow(file);
      expect(readFileSync(file, "utf8")).toBe(bad);
    }
  });

  it("an approval settles exactly its text; only a wildcard approval (a folder's) matches more", () => {
    const exact = [{ permission: "bash", pattern: "rm *.tmp" }];
    expect(isApproved(exact, "bash", "rm *.tmp")).toBe(true);
    expect(isApproved(exact, "bash", "rm important.tmp")).toBe(false);
    expect(isApproved(exact, "edit", "rm *.tmp")).toBe(false);
    const folder = [{ permission: "external_directory", pattern: "/data/*", wildcard: true }];
    expect(isApproved(folder, "external_directory", "/data/sub")).toBe(true);
    expect(isApproved(folder, "external_directory", "/etc")).toBe(false);
  });
});

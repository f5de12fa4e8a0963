import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArborError } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { exitCodeFor, reportError, UsageError } from "../src/errors.js";
import { redactUrl, resolveStore } from "../src/store.js";
import { captureIo } from "./helpers/io.js";
import { expectUsageError, usageCli } from "./helpers/usage.js";

/**
 * In-process runs for everything decided before a store is opened. The home directory is never
 * created: the last test checks that none of these runs opened (and so created) the default store.
 */
const cli = usageCli(join(tmpdir(), "arbor-cli-usage-test-never-created"));

describe("help and version", () => {
  it("prints help and version with exit 0", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: arbor <command>");
    expect(help.stdout).toContain("sessions tree <id>");
    expect((await cli("-h")).stdout).toBe(help.stdout);
    expect((await cli("help")).stdout).toBe(help.stdout);
    const version = await cli("--version");
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });

  it("prints group and command help", async () => {
    const group = await cli("sessions", "--help");
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("Usage: arbor sessions <command>");
    expect((await cli("help", "sessions")).stdout).toBe(group.stdout);
    const list = await cli("sessions", "list", "--help");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("--limit <n>");
    expect(list.stdout).toContain("--cursor <cursor>");
    expect((await cli("help", "sessions", "import")).stdout).toContain("--new-id");
  });

  it("shows the help on stderr with exit 2 when no command is given", async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: arbor <command>");
  });
});

describe("bad usage exits 2 with one actionable line", () => {
  const cases: [string[], RegExp][] = [
    [["frob"], /unknown command 'frob'.*arbor --help/],
    [
      ["sessions"],
      /'arbor sessions' needs a command: list, show, summary, tree, leaf, fork, replay, label, compare, diff, rm, export or import/,
    ],
    [["kb"], /'arbor kb' needs a command: add, search, list or rm/],
    [["kb", "search", "x", "--limit", "0"], /--limit must be a whole number from 1 to 100, got '0'/],
    [["sessions", "lst"], /unknown command 'arbor sessions lst'.*arbor sessions --help/],
    [["sessions", "show"], /missing <id>\. Usage: arbor sessions show <id>/],
    [["sessions", "import"], /missing <file>/],
    [["sessions", "show", "a", "b"], /unexpected argument 'b'/],
    [["sessions", "list", "--bogus"], /unknown option '--bogus' for 'arbor sessions list'.*arbor sessions list --help/],
    [["sessions", "show", "x", "--limit", "3"], /unknown option '--limit' for 'arbor sessions show'/],
    [["sessions", "list", "--store"], /option '--store' needs a value/],
    [["sessions", "list", "--store", "--json"], /option '--store' needs a value.*--store=<value>/],
    [["sessions", "list", "--json=yes"], /option '--json' does not take a value/],
    [["sessions", "list", "--limit", "0"], /--limit must be a whole number from 1 to 1000, got '0'/],
    [["sessions", "list", "--limit", "ten"], /--limit must be a whole number/],
    [["sessions", "list", "--store", "redis://localhost"], /Unsupported store URL scheme/],
    [["sessions", "list", "--store", "sqlite:"], /sqlite: needs a file name/],
    [["sessions", "list", "--version"], /unknown option '--version'|--version takes no command/],
  ];
  for (const [argv, message] of cases) {
    it(argv.join(" ") || "(nothing)", async () => {
      expectUsageError(await cli(...argv), argv, message);
    });
  }

  it("with --json also prints the error object on stdout", async () => {
    const r = await cli("sessions", "list", "--json", "--limit", "0");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: "usage", message: "--limit must be a whole number from 1 to 1000, got '0'." },
    });
    const spec = await cli("sessions", "list", "--json", "--store", "ftp://x");
    expect(JSON.parse(spec.stdout).error.code).toBe("invalid_store_spec");
  });
});

it("opens no store for bad usage", () => {
  expect(existsSync(join(tmpdir(), "arbor-cli-usage-test-never-created"))).toBe(false);
});

describe("errors", () => {
  it("maps input errors to 2 and other failures to 1", () => {
    expect(exitCodeFor(new UsageError("x"))).toBe(2);
    for (const code of [
      "invalid_id",
      "session_not_found",
      "session_exists",
      "invalid_input",
      "invalid_store_spec",
      "unsupported_version",
    ] as const) {
      expect(exitCodeFor(new ArborError(code, "x"))).toBe(2);
    }
    expect(exitCodeFor(new ArborError("corrupt_session", "x"))).toBe(1);
    expect(exitCodeFor(new ArborError("io_error", "x"))).toBe(1);
    expect(exitCodeFor(new Error("boom"))).toBe(1);
  });

  it("prints ArborErrors as one line with a hint, and JSON with code and message", () => {
    const io = captureIo();
    const code = reportError(io, new ArborError("session_not_found", "Session x does not exist."), {
      json: true,
      storeLabel: "file store /tmp/s",
    });
    expect(code).toBe(2);
    expect(JSON.parse(io.out())).toEqual({ error: { code: "session_not_found", message: "Session x does not exist." } });
    expect(io.err()).toBe(
      "error: Session x does not exist. Looked in the file store /tmp/s; run 'arbor sessions list' with the same --store to see its sessions.\n",
    );
  });

  it("shows a stack trace for unexpected failures only with ARBOR_DEBUG", () => {
    const quiet = captureIo();
    expect(reportError(quiet, new Error("boom"), { json: false })).toBe(1);
    expect(quiet.err()).toBe("error: boom (set ARBOR_DEBUG=1 to see where it failed)\n");
    const debug = captureIo({ env: { ARBOR_DEBUG: "1" } });
    reportError(debug, new Error("boom"), { json: false });
    expect(debug.err()).toMatch(/^error: boom\nError: boom\n\s+at /);
  });
});

describe("store resolution", () => {
  it("uses --store, then ARBOR_STORE, then ARBOR_HOME, then ~/.arbor", async () => {
    expect((await resolveStore("sqlite:/tmp/a.db", { ARBOR_STORE: "/x" }, "/home/me")).spec).toEqual({
      kind: "sqlite",
      file: "/tmp/a.db",
    });
    expect((await resolveStore(undefined, { ARBOR_STORE: "/x", ARBOR_HOME: "/h" }, "/home/me")).spec).toEqual({
      kind: "file",
      dir: "/x",
    });
    expect((await resolveStore(undefined, { ARBOR_STORE: "", ARBOR_HOME: "/h" }, "/home/me")).spec).toEqual({
      kind: "file",
      dir: "/h",
    });
    expect(await resolveStore(undefined, {}, "/home/me")).toEqual({
      spec: { kind: "file", dir: "/home/me/.arbor" },
      label: "file store /home/me/.arbor",
      explicit: false,
    });
    expect((await resolveStore("/x", {}, "/home/me")).explicit).toBe(true);
  });

  it("never shows a database password", async () => {
    expect(redactUrl("postgres://u:secret@db:5432/x")).toBe("postgres://u:***@db:5432/x");
    expect((await resolveStore("mysql://u:secret@db/x", {}, "/h")).label).toBe("mysql store mysql://u:***@db/x");
  });
});

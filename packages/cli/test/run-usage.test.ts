import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectUsageError, usageCli } from "./helpers/usage.js";

/**
 * `arbor run` and `arbor demo` refusing their command line: exit 2, one line saying what to fix,
 * and no store opened (the home directory, where the default store would be, is never created).
 */

// Made at load time: the test names below show these paths.
const dir = mkdtempSync(join(tmpdir(), "arbor-run-usage-"));
const home = join(dir, "home-never-created");
const file = join(dir, "a-file.txt");
writeFileSync(file, "x");

afterAll(() => rm(dir, { recursive: true, force: true }));

const cli = usageCli(home, { OPENAI_API_KEY: "" });

describe("help", () => {
  it("lists run and demo, and documents every flag of run", async () => {
    const root = await cli("--help");
    expect(root.stdout).toMatch(/^ {2}run "<prompt>" /m);
    expect(root.stdout).toMatch(/^ {2}demo /m);
    const help = await cli("run", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: arbor run [options] "<prompt>"');
    for (const flag of [
      "--store <spec>",
      "--model <provider/model>",
      "--base-url <url>",
      "--session <id>",
      "--resume",
      "--agent <name>",
      "--cwd <dir>",
      "--max-turns <n>",
      "--yes",
      "--json",
      "--record <file>",
      "--replay <file>",
    ]) {
      expect(help.stdout, flag).toContain(flag);
    }
    expect((await cli("help", "run")).stdout).toBe(help.stdout);
    const demo = await cli("demo", "--help");
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("Usage: arbor demo [options]");
  });
});

describe("bad usage of run and demo exits 2 and touches no store", () => {
  const cases: [string[], RegExp][] = [
    [["run"], /missing "<prompt>"\. Usage: arbor run \[options\] "<prompt>"/],
    [["run", ""], /the prompt is empty/],
    [["run", "  \n "], /the prompt is empty/],
    [["run", "--max-turns", "0", "hi"], /--max-turns must be a whole number from 1 to 10000, got '0'/],
    [["run", "--max-turns", "ten", "hi"], /--max-turns must be a whole number/],
    [["run", "--max-turns", "2.5", "hi"], /--max-turns must be a whole number/],
    [["run", "--bogus", "hi"], /unknown option '--bogus' for 'arbor run'.*arbor run --help/],
    [["run", "--limit", "3", "hi"], /unknown option '--limit' for 'arbor run'/],
    [["run", "--cwd", join(dir, "missing"), "hi"], /--cwd .*missing: no such directory/],
    [["run", "--cwd", file, "hi"], /--cwd .*a-file\.txt: not a directory/],
    [["run", "--session", "../etc", "hi"], /Session id "\.\.\/etc" is not valid/],
    [["run", "--model", "", "hi"], /--model needs a value/],
    [["run", "--resume"], /--resume needs --session <id>/],
    [["run", "--session", "s1", "--resume", "go on"], /--resume takes no prompt/],
    // Named as the user typed it, not by the config key behind it (baseURL).
    [["run", "--base-url", "not a url", "--model", "openai-compatible/x", "hi"], /--base-url: Invalid URL/],
    [["run", "--json", ""], /the prompt is empty/],
    [["run", "--record", "", "hi"], /--record needs a file/],
    [
      ["run", "--replay", file, "--model", "openai/gpt-4o", "hi"],
      /--replay answers from the cassette's recorded model; drop --model/,
    ],
    [["run", "--replay", file, "hi"], /a-file\.txt is not JSON/],
    [["demo", "now"], /'arbor demo' takes no arguments, got 'now'/],
    [["demo", "--yes"], /unknown option '--yes' for 'arbor demo'/],
  ];
  for (const [argv, message] of cases) {
    it(argv.join(" ") || "(nothing)", async () => {
      expectUsageError(await cli(...argv), argv, message);
    });
  }

  it("opened no store", () => {
    expect(existsSync(home)).toBe(false);
  });
});

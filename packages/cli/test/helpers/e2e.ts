import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent } from "@arbor/core";
import { type FakeOpenAIOptions, type FakeOpenAIServer, type Script, startFakeOpenAI } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll } from "vitest";
import { arbor, type CliOptions, type CliResult, type RunningCli, startArbor } from "./cli.js";
import { runArborInProcess } from "./in-process.js";

/**
 * The setup the CLI end-to-end tests share: a temporary directory holding ARBOR_HOME (`home`) and a
 * workspace, the fake OpenAI-compatible server (closed after each test) and `arbor` run under that home.
 */
export interface CliE2e {
  /** The temporary directory; removed after the file's tests. */
  readonly dir: string;
  /** `<dir>/home`, the ARBOR_HOME `arbor` runs under unless told otherwise. */
  readonly home: string;
  /** `<dir>/ws`, created before the tests with the files asked for. */
  readonly workspace: string;
  /** The fake provider the current test started, if any. */
  readonly server: FakeOpenAIServer | undefined;
  /** Starts the fake provider for this test (closing any earlier one) and gives its base URL. */
  fake(script: Script): Promise<string>;
  /** Like `fake`, with the server's other options; gives the server. */
  startFake(opts: FakeOpenAIOptions): Promise<FakeOpenAIServer>;
  /** `--model`, `--base-url` for the fake provider at `baseURL`, and `--cwd` the workspace. */
  modelArgs(baseURL: string): string[];
  /** `run --json` with `modelArgs(baseURL)`, then `rest`. */
  runArgs(baseURL: string, ...rest: string[]): string[];
  /** `arbor …` under `home` (or `opts.home`), waiting for it to exit. */
  arbor(args: string[], opts?: Partial<CliOptions>): Promise<CliResult>;
  /**
   * `arbor …` under `home` (or `opts.home`) run in this process (see `runArborInProcess`): for a
   * command whose output and exit code are all the test reads.
   */
  cli(args: string[], opts?: Partial<CliOptions>): Promise<CliResult>;
  /** `arbor …` under `home` (or `opts.home`), running. */
  startArbor(args: string[], opts?: Partial<CliOptions>): RunningCli;
  /** A new directory below `dir` with a name of its own (for a home or a workspace of one test). */
  freshDir(name: string): string;
}

export interface CliE2eOptions {
  /** Files to write into the workspace before the tests, by name relative to it. */
  files?: Record<string, string>;
  /** Whether to make the workspace (default true); without it the directory starts empty. */
  workspace?: boolean;
  /** Resolves the temporary directory's links, for tests that compare the paths Arbor stores. */
  realpath?: boolean;
}

/** The fake provider's model under the command line's names. */
export const FAKE_MODEL = "openai-compatible/fake";

/** Registers the hooks of a CLI end-to-end test file; `prefix` names its temporary directory. */
export function setupCliE2e(prefix: string, opts: CliE2eOptions = {}): CliE2e {
  let dir: string | undefined;
  let server: FakeOpenAIServer | undefined;
  const need = () => {
    if (dir === undefined) throw new Error("the CLI e2e directory is made in beforeAll; read it inside a hook or test");
    return dir;
  };
  const closeServer = async () => {
    await server?.close();
    server = undefined;
  };

  beforeAll(async () => {
    const made = await mkdtemp(join(tmpdir(), prefix));
    dir = opts.realpath ? await realpath(made) : made;
    const ws = join(dir, "ws");
    if (opts.workspace !== false) await mkdir(ws);
    for (const [name, content] of Object.entries(opts.files ?? {})) await writeFile(join(ws, name), content);
  });
  afterAll(async () => {
    await closeServer();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  afterEach(closeServer);

  const startFake = async (fakeOpts: FakeOpenAIOptions) => {
    await closeServer();
    server = await startFakeOpenAI(fakeOpts);
    return server;
  };
  const modelArgs = (baseURL: string) => ["--model", FAKE_MODEL, "--base-url", baseURL, "--cwd", join(need(), "ws")];
  const withHome = (o: Partial<CliOptions> = {}): CliOptions => ({ ...o, home: o.home ?? join(need(), "home") });
  return {
    get dir() {
      return need();
    },
    get home() {
      return join(need(), "home");
    },
    get workspace() {
      return join(need(), "ws");
    },
    get server() {
      return server;
    },
    startFake,
    fake: async (script) => (await startFake({ script })).baseURL,
    modelArgs,
    runArgs: (baseURL, ...rest) => ["run", "--json", ...modelArgs(baseURL), ...rest],
    arbor: (args, o) => arbor(args, withHome(o)),
    cli: (args, o) => runArborInProcess(args, withHome(o)),
    startArbor: (args, o) => startArbor(args, withHome(o)),
    freshDir: (name) => join(need(), `${name}-${Math.random().toString(36).slice(2)}`),
  };
}

/** The events `arbor run --json` printed, one a line. */
export function runEvents(r: CliResult): RunEvent[] {
  return r.stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as RunEvent);
}

import { afterEach, describe, expect, it } from "vitest";
import { pythonReplTool } from "../../src/tools/builtin/python-repl.js";
import { PythonRepls } from "../../src/tools/python/python-repls.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

const opened: PythonRepls[] = [];
afterEach(() => {
  for (const repls of opened.splice(0)) repls.closeAll();
});

function setup(options: ConstructorParameters<typeof PythonRepls>[0] = {}) {
  const repls = new PythonRepls({ interruptGraceMs: 500, ...options });
  opened.push(repls);
  const registry = new ToolRegistry().register(pythonReplTool({ repls }));
  const cwd = tempDir();
  const ctx = fakeContext(cwd);
  const run = (input: Record<string, unknown>, c = ctx) => registry.invoke("python_repl", input, c);
  return { repls, ctx, cwd, run };
}

describe("python_repl", () => {
  it("keeps variables, imports and functions between calls, and prints a last expression's value", async () => {
    const { run, ctx } = setup();
    expect(await run({ code: "import math\nx = 6\ndef sq(n):\n    return n * n" })).toMatchObject({
      isError: false,
      output: "(no output)",
    });
    expect(await run({ code: "y = sq(x) + 1\nprint('y is', y)" })).toMatchObject({ isError: false, output: "y is 37" });
    expect(await run({ code: "math.sqrt(y - 1) * 2" })).toMatchObject({ isError: false, output: "12.0" });
    expect(ctx.asks.map((a) => a.permission)).toEqual(["python_repl", "python_repl", "python_repl"]);
  });

  it("keeps one session per run: another session does not see this one's variables", async () => {
    const { run, cwd } = setup();
    await run({ code: "secret = 1" });
    const other = await run({ code: "secret" }, fakeContext(cwd, { sessionId: "ses_other" }));
    expect(other).toMatchObject({ isError: true, code: "tool_failed" });
    expect(other.output).toContain("NameError: name 'secret' is not defined");
  });

  it("reports an exception as a tool error with its traceback, and the session goes on", async () => {
    const { run } = setup();
    const out = await run({ code: "a = 2\nprint('before')\n1 / 0" });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toMatch(/^before\nTraceback \(most recent call last\):\n {2}File "<python_repl>", line 3/);
    expect(out.output).toContain("ZeroDivisionError: division by zero");
    expect(out.output).not.toContain("_run");
    expect(await run({ code: "a" })).toMatchObject({ isError: false, output: "2" });
  });

  it("interrupts a call past its timeout and keeps the session", async () => {
    const { run } = setup();
    await run({ code: "kept = 'yes'" });
    const out = await run({ code: "while True:\n    pass", timeout: 300 });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toContain("KeyboardInterrupt");
    expect(out.output).toContain("[Timed out after 300 ms and interrupted.]");
    expect(await run({ code: "kept" })).toMatchObject({ isError: false, output: "'yes'" });
  });

  it("is interrupted by an abort", async () => {
    const { run, ctx, repls } = setup();
    const pending = run({ code: "import time\ntime.sleep(30)" });
    // Abort once the Python process is up (polled, no sleeps); the 30 s call must end long before the test's timeout.
    await new Promise<void>((resolve) => {
      const poll = () => (repls.isRunning("ses_test") ? resolve() : setImmediate(poll));
      poll();
    });
    ctx.controller.abort();
    const out = await pending;
    expect(out).toMatchObject({ isError: true, code: "aborted" });
    expect(out.output).toContain("[Interrupted: the run was aborted.]");
  });

  it("restarts after a crash and tells the model its variables are gone", async () => {
    const { run } = setup();
    await run({ code: "v = 1" });
    const crash = await run({ code: "import os\nos._exit(3)" });
    expect(crash).toMatchObject({ isError: true, code: "tool_failed" });
    expect(crash.output).toContain("The Python process died while running this code");
    const next = await run({ code: "'v' in globals()" });
    expect(next).toMatchObject({ isError: false });
    expect(next.output).toBe(
      "[A new Python session was started because the previous Python process exited with code 3: variables from earlier calls are gone.]\nFalse",
    );
  });

  it("says clearly when there is no Python", async () => {
    const { run } = setup({ python: "python3-that-does-not-exist" });
    const out = await run({ code: "1" });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toMatch(/python_repl needs Python 3, and "python3-that-does-not-exist" was not found on the PATH/);
  });

  it("does not run when permission is rejected", async () => {
    const { run, cwd, repls } = setup();
    const out = await run({ code: "open('x', 'w')" }, fakeContext(cwd, { answer: () => "reject" }));
    expect(out).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(repls.isRunning("ses_test")).toBe(false);
  });

  it("keeps what a program started from Python prints to the process's own output", async () => {
    const { run } = setup();
    const out = await run({ code: "import subprocess\nsubprocess.run(['echo', 'from child'])\nprint('done')" });
    expect(out.output).toContain("from child");
    expect(out.output).toContain("done");
  });
});

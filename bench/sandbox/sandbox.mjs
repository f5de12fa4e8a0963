// Section "sandbox": what the OS sandbox adds to the processes tools start. The same `bash` call
// (`true`, then a small pipeline) through the bash tool with no sandbox and with bubblewrap, alternating,
// and a python_repl session's start (first call) and a later call, each way. Wall time is the call as the
// model waits for it; CPU is this process's own (user + system) plus its children's, from getrusage.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../lib/env.mjs";
import { note, num, section, table } from "../lib/format.mjs";
import { summarize } from "../lib/stats.mjs";

const BASH_TARGET_MS = 30;
const PYTHON_TARGET_MS = 150;

/** The tools themselves, from the build (they are not part of the public entry points). */
async function load() {
  const dist = join(REPO, "packages/core/dist");
  const [bash, python, repls, sandbox, settings, registry] = await Promise.all([
    import(join(dist, "tools/builtin/bash.js")),
    import(join(dist, "tools/builtin/python-repl.js")),
    import(join(dist, "tools/python/python-repls.js")),
    import(join(dist, "sandbox/sandbox.js")),
    import(join(dist, "sandbox/settings.js")),
    import(join(dist, "tools/registry.js")),
  ]);
  return { ...bash, ...python, ...repls, ...sandbox, ...settings, ...registry };
}

export async function run(ctx) {
  const { tmp, quick } = ctx;
  const core = await load();
  section(
    `Sandbox: bash call p50 added ≤ ${BASH_TARGET_MS} ms, python_repl start added ≤ ${PYTHON_TARGET_MS} ms (sandbox on vs off)`,
  );
  const workspace = mkdtempSync(join(tmp, "sandbox-ws-"));
  const home = mkdtempSync(join(tmp, "sandbox-home-"));
  const on = new core.Sandbox({ settings: core.SandboxSettingsSchema.parse({ mode: "required" }), arborHome: home });
  const found = await on.availability();
  if (!found.available) {
    note(`skipped: ${found.reason}; ${found.install}`);
    return;
  }
  const off = new core.Sandbox({ settings: core.SandboxSettingsSchema.parse({ mode: "off" }), arborHome: home });
  const ctxFor = (sessionId) => ({
    sessionId,
    messageId: "m",
    callId: "c",
    agent: "build",
    cwd: workspace,
    abort: new AbortController().signal,
    metadata() {},
    ask: async () => {},
  });
  const tools = {
    off: new core.ToolRegistry().register(core.bashTool({ sandbox: off })),
    on: new core.ToolRegistry().register(core.bashTool({ sandbox: on })),
  };
  const n = quick ? 15 : 40;
  const rows = [];
  for (const command of ["true", "ls -la | wc -l && echo done > out.txt"]) {
    const wall = { off: [], on: [] };
    const cpu = { off: [], on: [] };
    await tools.off.invoke("bash", { command }, ctxFor("warm")); // the shell parser's first load is no one's cost
    for (let i = 0; i < n; i++) {
      for (const mode of i % 2 === 0 ? ["off", "on"] : ["on", "off"]) {
        const c0 = cpuMs();
        const t0 = performance.now();
        const result = await tools[mode].invoke("bash", { command }, ctxFor("b"));
        wall[mode].push(performance.now() - t0);
        cpu[mode].push(cpuMs() - c0);
        if (result.isError) throw new Error(`bash (${mode}) failed: ${result.output}`);
      }
    }
    const w = { off: summarize(wall.off), on: summarize(wall.on) };
    const c = { off: summarize(cpu.off), on: summarize(cpu.on) };
    const added = w.on.p50 - w.off.p50;
    rows.push([
      `bash ${command}`,
      num(w.off.p50),
      num(w.on.p50),
      num(added),
      num(c.off.p50),
      num(c.on.p50),
      added <= BASH_TARGET_MS ? "ok" : "OVER",
    ]);
  }
  const starts = { off: [], on: [] };
  const cpuStarts = { off: [], on: [] };
  const later = { off: [], on: [] };
  // The same interpreter both ways: a shim (pyenv) would otherwise cost the unsandboxed side its own start-up.
  const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  const repls = { off: new core.PythonRepls({ sandbox: off, python }), on: new core.PythonRepls({ sandbox: on, python }) };
  const pythonTools = {
    off: new core.ToolRegistry().register(core.pythonReplTool({ repls: repls.off })),
    on: new core.ToolRegistry().register(core.pythonReplTool({ repls: repls.on })),
  };
  const m = quick ? 5 : 12;
  for (let i = 0; i < m; i++) {
    for (const mode of i % 2 === 0 ? ["off", "on"] : ["on", "off"]) {
      const session = `py-${mode}-${i}`;
      const c0 = cpuMs();
      let t0 = performance.now();
      const first = await pythonTools[mode].invoke("python_repl", { code: "1 + 1" }, ctxFor(session));
      starts[mode].push(performance.now() - t0);
      cpuStarts[mode].push(cpuMs() - c0);
      if (first.isError) throw new Error(`python_repl (${mode}) failed: ${first.output}`);
      t0 = performance.now();
      await pythonTools[mode].invoke("python_repl", { code: "x = sum(range(1000)); x" }, ctxFor(session));
      later[mode].push(performance.now() - t0);
      repls[mode].close(session);
    }
  }
  const ps = { off: summarize(starts.off), on: summarize(starts.on) };
  const pc = { off: summarize(cpuStarts.off), on: summarize(cpuStarts.on) };
  const pl = { off: summarize(later.off), on: summarize(later.on) };
  const addedStart = ps.on.p50 - ps.off.p50;
  rows.push([
    "python_repl start",
    num(ps.off.p50),
    num(ps.on.p50),
    num(addedStart),
    num(pc.off.p50),
    num(pc.on.p50),
    addedStart <= PYTHON_TARGET_MS ? "ok" : "OVER",
  ]);
  rows.push(["python_repl later call", num(pl.off.p50), num(pl.on.p50), num(pl.on.p50 - pl.off.p50), "", "", ""]);
  table(["p50 (ms)", "off", "on", "added", "CPU off", "CPU on", "target"], rows);
  note(
    `${found.detail}; ${n} bash calls and ${m} python starts each way, alternating; CPU = this process and its children (getrusage).`,
  );
  rmSync(workspace, { recursive: true, force: true });
}

/** User + system CPU of this process and of its waited-for children, in ms. */
function cpuMs() {
  const self = process.resourceUsage();
  return (self.userCPUTime + self.systemCPUTime) / 1000 + childrenCpu();
}

function childrenCpu() {
  // Node has no getrusage(RUSAGE_CHILDREN); /proc/self/stat's cutime and cstime (fields 16, 17) are in clock ticks.
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

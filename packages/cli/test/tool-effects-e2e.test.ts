import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunEvent } from "@arbor/core";
import { type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { RESUMED_INTERRUPTED_OUTPUT } from "../../core/src/loop/wake.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, jsonLines } from "./helpers/fault.js";

/**
 * kill -9 of `arbor run` while a tool with effects runs, after the run recorded the call started and
 * before its result, then `arbor run --resume`: an at-most-once call (bash) is not run again, an
 * idempotent-by-key one (an MCP tool that says so) runs again with the key it was first given.
 */

const e2e = setupCliE2e("arbor-tool-effects-");
const sdk = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url));

/**
 * An MCP server whose one tool says it is idempotent: it logs the key of each call and reports it
 * as progress (so the test sees the call under way); the first call then never returns.
 */
const STAMP_SERVER = `
import { appendFileSync, existsSync } from "node:fs";
import { McpServer } from "${sdk}server/mcp.js";
import { StdioServerTransport } from "${sdk}server/stdio.js";
const log = process.argv[2];
const server = new McpServer({ name: "fx", version: "1.0.0" });
server.registerTool("stamp", { description: "Stamps the log.", annotations: { idempotentHint: true } }, async (extra) => {
  const first = !existsSync(log);
  appendFileSync(log, String(extra._meta?.["arbor/idempotencyKey"]) + "\\n");
  const progressToken = extra._meta?.progressToken;
  if (progressToken !== undefined) {
    await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: 1, message: "stamped" } });
  }
  if (first) await new Promise(() => {});
  return { content: [{ type: "text", text: "stamped" }] };
});
await server.connect(new StdioServerTransport());
`;

let rig: FaultRig;
beforeAll(async () => {
  await writeFile(join(e2e.dir, "stamp-server.mjs"), STAMP_SERVER);
  await writeFile(
    join(e2e.workspace, "arbor.json"),
    JSON.stringify({
      mcp: {
        servers: { fx: { command: process.execPath, args: [join(e2e.dir, "stamp-server.mjs"), join(e2e.dir, "stamps.log")] } },
      },
      // The cases read the tool's host process (its pid, a log beside the test): unsandboxed, as in the fault tests.
      sandbox: { mode: "off" },
    }),
  );
});
afterEach(async () => {
  await rig?.cleanup();
});

/** The first answer calls `call`; every later one ends the run. Title requests offer no tools. */
function oneCall(call: ScriptAction) {
  return (ctx: StepContext): readonly ScriptAction[] => {
    const body = (ctx.source === "http" ? ctx.body : {}) as { tools?: unknown[]; messages?: Array<{ role: string }> };
    if (!body.tools) return [text("Effects")];
    const turn = (body.messages ?? []).filter((m) => m.role === "assistant").length;
    return turn === 0 ? [call] : [text("Done.")];
  };
}

/** Runs until a progress report of the call shows it under way, kills the run, resumes it; gives the resumed run's events. */
async function killMidCallAndResume(call: ScriptAction, underWay: RegExp): Promise<{ events: RunEvent[]; first: string }> {
  rig = new FaultRig(() => e2e.workspace);
  const baseURL = await rig.fakeServer(Array.from({ length: 10 }, () => oneCall(call)));
  const run = rig.start(["run", "--json", "--yes", ...rig.modelArgs(baseURL), "go"], e2e.home);
  await run.waitForStdout(underWay);
  run.child.kill("SIGKILL");
  const first = (await run.result).stdout;
  const id = (jsonLines(first)[0] as RunEvent).session_id;
  const resumed = rig.start(["run", "--json", "--yes", "--session", id, "--resume", ...rig.modelArgs(baseURL)], e2e.home);
  const done = await resumed.result;
  expect(done.code, done.stderr).toBe(0);
  return { events: jsonLines(done.stdout), first };
}

describe("tool effects across a kill -9 of arbor run", () => {
  it("does not run an at-most-once call again once it started: bash's marker is written once", async () => {
    const marker = join(e2e.workspace, "marker.log");
    const command = `echo "$ARBOR_IDEMPOTENCY_KEY" >> ${marker}; echo "under way $$"; exec sleep 300`;
    const { events, first } = await killMidCallAndResume(toolCall("bash", { command }, { id: "b1" }), /under way \d+/);
    // The command's process outlives the kill of its run; the rig ends it.
    rig.strayPids.push(Number(/under way (\d+)/.exec(first)?.[1]));
    const lines = (await readFile(marker, "utf8")).split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^arbor:.+:b1$/);
    const end = events.find((e) => e.type === "tool_end");
    expect(end).toMatchObject({ call_id: "b1", is_error: true, output: RESUMED_INTERRUPTED_OUTPUT });
    expect(events.at(-1)).toMatchObject({ type: "done" });
  }, 300_000);

  it("runs an idempotent-by-key call again with the same key", async () => {
    const { events } = await killMidCallAndResume(toolCall("mcp__fx__stamp", {}, { id: "s1" }), /stamped/);
    const keys = (await readFile(join(e2e.dir, "stamps.log"), "utf8")).split("\n").filter(Boolean);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^arbor:.+:s1$/);
    expect(keys[1]).toBe(keys[0]);
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ call_id: "s1", is_error: false, output: "stamped" });
    expect(events.at(-1)).toMatchObject({ type: "done" });
  }, 300_000);
});

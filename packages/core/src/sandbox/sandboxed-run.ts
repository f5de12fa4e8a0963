import { isArborError } from "../errors.js";
import type { ToolContext } from "../tools/tool.js";
import type { Command } from "./backend.js";
import type { Sandbox, SandboxedCall, SandboxRequest } from "./sandbox.js";
import { writeWalls } from "./walls.js";

/** The permission a widening of the sandbox is asked under; `--yes` never answers it. */
export const SANDBOX_PERMISSION = "sandbox";

export interface SandboxedOutcome<R> {
  result: R;
  /** Lines for the model (and the user, who sees the tool result): the notice, refused hosts, walls left. */
  notes: string[];
  confined: boolean;
  refusedHosts: string[];
}

/**
 * Runs one process through the sandbox and, when it hit a wall (a write outside the workspace, a
 * refused host), asks to widen for that one folder or host and runs it again once with it. An ask
 * refused leaves the first result, with the wall named. No sandbox given: the process runs as it
 * always did, with Arbor's environment.
 */
export async function runSandboxed<R>(
  sandbox: Sandbox | undefined,
  ctx: ToolContext,
  cwd: string,
  inner: Command,
  exec: (command: Command) => Promise<R>,
  outputOf: (result: R) => string,
): Promise<SandboxedOutcome<R>> {
  if (!sandbox)
    return {
      result: await exec({ ...inner, env: { ...envOf(process.env), ...inner.env } }),
      notes: [],
      confined: false,
      refusedHosts: [],
    };
  const request: SandboxRequest = { workspace: ctx.cwd, cwd, agent: ctx.agent };
  const first = await once(sandbox, request, inner, exec);
  const walls = first.call.confined ? writeWalls(outputOf(first.result), cwd).filter((p) => !inside(p, ctx.cwd)) : [];
  const refused = first.refused;
  if (ctx.abort.aborted || (walls.length === 0 && refused.length === 0)) return outcome(first, walls);
  const granted = { writable: [] as string[], hosts: [] as string[] };
  for (const path of walls) if (await widen(ctx, `write ${path}`, { path, command: ctx.callId })) granted.writable.push(path);
  for (const host of refused) if (await widen(ctx, `network ${host}`, { host })) granted.hosts.push(host);
  if (granted.writable.length === 0 && granted.hosts.length === 0) return outcome(first, walls);
  const second = await once(sandbox, { ...request, writable: granted.writable, hosts: granted.hosts }, inner, exec);
  const left = writeWalls(outputOf(second.result), cwd).filter((p) => !inside(p, ctx.cwd) && !granted.writable.includes(p));
  const widened = [...granted.writable.map((p) => `writes to ${p}`), ...granted.hosts.map((h) => `connections to ${h}`)];
  const result = outcome(second, left);
  result.notes.unshift(`[Arbor sandbox: the command hit the sandbox and ran again with ${widened.join(", ")} allowed.]`);
  return result;
}

async function once<R>(sandbox: Sandbox, request: SandboxRequest, inner: Command, exec: (command: Command) => Promise<R>) {
  const call = await sandbox.prepare(request, inner);
  try {
    const result = await exec(call.command);
    return { call, result, refused: call.refusedHosts() };
  } finally {
    await call.close();
  }
}

function outcome<R>(run: { call: SandboxedCall; result: R; refused: string[] }, walls: string[]): SandboxedOutcome<R> {
  const notes: string[] = [];
  if (run.call.notice) notes.push(run.call.notice);
  if (run.refused.length > 0) {
    notes.push(`[Arbor sandbox: connections refused to ${run.refused.join(", ")} (not in sandbox.network.allow).]`);
  }
  if (walls.length > 0) {
    notes.push(
      `[Arbor sandbox: writing outside the workspace is blocked (${walls.join(", ")}); the sandbox is read-only there.]`,
    );
  }
  return { result: run.result, notes, confined: run.call.confined, refusedHosts: run.refused };
}

/** Asks for one widening; a refusal or a rule's deny is an answer (false), anything else propagates. */
async function widen(ctx: ToolContext, pattern: string, metadata: Record<string, unknown>): Promise<boolean> {
  try {
    await ctx.ask({ permission: SANDBOX_PERMISSION, patterns: [pattern], metadata: { ...metadata, sandbox: true } });
    return true;
  } catch (err) {
    if (isArborError(err, "permission_rejected") || isArborError(err, "permission_denied")) return false;
    throw err;
  }
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

function envOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

import { resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

export async function runSessionsRm(ctx: CommandContext): Promise<void> {
  const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  // Resolving the id checked that the session exists: a mistyped id is an error, not a silent no-op.
  await withSessionRuntime(ctx.io, ctx.store, "arbor sessions rm", (runtime) => runtime.sessions.delete(id));
  if (ctx.json) writeJson(ctx.io.stdout, { deleted: id });
  else ctx.io.stdout.write(`Deleted session ${id}.\n`);
}

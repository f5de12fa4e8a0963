import { ArborError } from "@arbor/core/open";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

export async function runSessionsFork(ctx: CommandContext): Promise<void> {
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const given = ctx.operands[1];
  const meta = await ctx.store.getSession(sessionId);
  const entryId = given === undefined ? meta?.leafEntryId : await resolveEntryId(ctx.store, sessionId, given);
  if (entryId === undefined || entryId === null) {
    throw new ArborError("invalid_input", `Session ${sessionId} is empty: there is nothing to fork.`);
  }
  const fork = await withSessionRuntime(ctx.io, ctx.store, "arbor sessions fork", (runtime) =>
    runtime.sessions.fork(sessionId, entryId),
  );
  if (ctx.json) writeJson(ctx.io.stdout, { sessionId: fork.id, forkedFrom: sessionId, entryId });
  else
    ctx.io.stdout.write(
      `Forked session ${sessionId} at entry ${entryId} into ${fork.id}.\n  continue: arbor run --session ${fork.id} "…"\n`,
    );
}

import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

export async function runSessionsLeaf(ctx: CommandContext): Promise<void> {
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const entryId = await resolveEntryId(ctx.store, sessionId, ctx.operands[1] as string);
  // Through a runtime, so a session another process drives is refused rather than moved under it.
  const result = await withSessionRuntime(ctx.io, ctx.store, "arbor sessions leaf", (runtime) =>
    runtime.sessions.switchLeaf(sessionId, entryId),
  );
  if (ctx.json) writeJson(ctx.io.stdout, { sessionId, leafId: result.leafId });
  else ctx.io.stdout.write(`Session ${sessionId} now continues from entry ${result.leafId ?? entryId}.\n`);
}

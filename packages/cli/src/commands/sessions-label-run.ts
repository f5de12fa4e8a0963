import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { oneLine } from "../render/text.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

export async function runSessionsLabel(ctx: CommandContext): Promise<void> {
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const entryId = await resolveEntryId(ctx.store, sessionId, ctx.operands[1] as string);
  const text = ctx.operands[2];
  const label = text === undefined ? undefined : oneLine(text);
  // Appended at the leaf, as the HTTP API does: a label entry is invisible to the model's context.
  await withSessionRuntime(ctx.io, ctx.store, "arbor sessions label", (runtime) =>
    runtime.sessions.label(sessionId, entryId, label),
  );
  if (ctx.json) writeJson(ctx.io.stdout, { sessionId, entryId, label: label ?? null });
  else
    ctx.io.stdout.write(
      label === undefined ? `Cleared the label of entry ${entryId}.\n` : `Labelled entry ${entryId} "${label}".\n`,
    );
}

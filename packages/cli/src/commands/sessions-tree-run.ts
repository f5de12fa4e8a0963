import { resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { pickStyle } from "../render/style.js";
import { renderTree } from "../render/tree.js";
import type { CommandContext } from "./command.js";

export async function runSessionsTree(ctx: CommandContext): Promise<void> {
  const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const snapshot = await ctx.store.getSnapshot(id);
  if (ctx.json) {
    const { activePath, childrenByParentId, labelsByEntryId } = snapshot;
    writeJson(ctx.io.stdout, { activePath, childrenByParentId, labelsByEntryId });
    return;
  }
  const out = ctx.io.stdout;
  const width = out.isTTY && out.columns !== undefined && out.columns > 0 ? out.columns : undefined;
  const lines = renderTree(snapshot, { style: pickStyle(out.isTTY, ctx.io.env), ...(width !== undefined ? { width } : {}) });
  writeLines(out, lines);
}

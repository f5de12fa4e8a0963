import type { SessionExport } from "@arbor/core";
import { atifSubSessionIds, entriesToExport, toAtif, toPiSession } from "@arbor/core/interop";
import { stringOption } from "../args.js";
import { writeOutputAtomically } from "../files.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { cliVersion } from "../version.js";
import type { CommandContext } from "./command.js";

import type { ExportFormat as Format } from "./export-formats.js";

export async function runSessionsExport(ctx: CommandContext): Promise<void> {
  const id = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const format = (stringOption(ctx.values, "format") ?? "arbor") as Format;
  const leafGiven = stringOption(ctx.values, "leaf");
  const leaf = leafGiven === undefined ? undefined : await resolveEntryId(ctx.store, id, leafGiven);
  const data = await ctx.store.exportSession(id);
  let text: string;
  let entries: number;
  switch (format) {
    case "arbor": {
      const selected =
        leaf === undefined
          ? data
          : { ...data, session: { ...data.session, leafEntryId: leaf }, entries: entriesToExport(data.entries, leaf, id) };
      text = `${JSON.stringify(selected, null, 2)}\n`;
      entries = selected.entries.length;
      break;
    }
    case "pi":
      text = toPiSession(data, leaf !== undefined ? { leaf } : {});
      entries = text.split("\n").filter(Boolean).length - 1;
      break;
    case "atif": {
      const subSessions = await subTraces(ctx, data, leaf);
      const trajectory = toAtif(data, { agentVersion: cliVersion(), subSessions, ...(leaf !== undefined ? { leaf } : {}) });
      text = `${JSON.stringify(trajectory, null, 2)}\n`;
      entries = trajectory.steps.length;
      break;
    }
  }
  const out = stringOption(ctx.values, "out");
  if (out === undefined || out === "-") {
    ctx.io.stdout.write(text);
    return;
  }
  await writeOutputAtomically(out, text, "Choose an --out path in an existing, writable directory.");
  const unit = format === "atif" ? "steps" : format === "pi" ? "lines" : "entries";
  if (ctx.json) writeJson(ctx.io.stdout, { sessionId: id, format, out, entries });
  else ctx.io.stdout.write(`Exported session ${id} (${entries} ${unit}${format === "arbor" ? "" : `, ${format}`}) to ${out}.\n`);
}

/**
 * Every sub-trace the branch delegated to, and theirs in turn, read from the store so the ATIF
 * trajectory embeds them (`subagent_trajectories`). One that is gone is left out: the trajectory
 * then refers to it by file name.
 */
async function subTraces(ctx: CommandContext, data: SessionExport, leaf: string | undefined) {
  const found = new Map<string, SessionExport>();
  const queue = atifSubSessionIds(data, leaf);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (found.has(id) || id === data.session.id) continue;
    const sub = await ctx.store.exportSession(id).catch(() => undefined);
    if (sub === undefined) continue;
    found.set(id, sub);
    queue.push(...atifSubSessionIds(sub));
  }
  return found;
}

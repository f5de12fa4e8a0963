import { flag } from "../args.js";
import { resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

const MARK = { added: "A", modified: "M", deleted: "D" } as const;

export async function runSessionsDiff(ctx: CommandContext): Promise<void> {
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const diff = await withSessionRuntime(ctx.io, ctx.store, "arbor sessions diff", (runtime) => runtime.sessions.diff(sessionId));
  if (ctx.json) {
    writeJson(ctx.io.stdout, diff);
    return;
  }
  if (diff.files.length === 0) {
    writeLines(ctx.io.stdout, [
      diff.steps === 0
        ? `Session ${sessionId} changed no file (no step recorded a change).`
        : `Session ${sessionId}'s ${diff.steps} steps left every file as it was.`,
    ]);
    return;
  }
  const head = `Session ${sessionId}: ${diff.files.length} file${diff.files.length === 1 ? "" : "s"} changed in ${diff.steps} step${diff.steps === 1 ? "" : "s"}${diff.workspace ? ` in ${diff.workspace}` : ""}.`;
  const files = diff.files.map((f) => `${MARK[f.status]} ${f.path}`);
  if (flag(ctx.values, "stat")) {
    writeLines(ctx.io.stdout, [head, ...files]);
    return;
  }
  writeLines(ctx.io.stdout, [head, ...files, ""]);
  for (const file of diff.files) ctx.io.stdout.write(file.diff.endsWith("\n") ? file.diff : `${file.diff}\n`);
}

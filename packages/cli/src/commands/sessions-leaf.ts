import { createRuntime } from "@arbor/core";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson } from "../io.js";
import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsLeaf: Command = {
  name: "leaf",
  operands: ["session", "entry"],
  summary: "Switch a session to another branch: its leaf moves to the entry, and the next prompt continues from there.",
  details: [
    "Ids may be shortened to any prefix only one session (or entry of the session) starts with, as 'arbor sessions tree' prints them.",
    "Nothing is deleted: the branch left stays in the tree. A session another process is running is not moved (session_busy).",
    "With --json: {sessionId, leafId}.",
  ],
  validate: validateSessionIdOperand,
  options: {},
  async run(ctx) {
    const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
    const entryId = await resolveEntryId(ctx.store, sessionId, ctx.operands[1] as string);
    // Through a runtime, so a session another process drives is refused rather than moved under it.
    const runtime = createRuntime({ store: ctx.store, env: ctx.io.env, holderName: "arbor sessions leaf" });
    try {
      const result = await runtime.switchLeaf(sessionId, entryId);
      if (ctx.json) writeJson(ctx.io.stdout, { sessionId, leafId: result.leafId });
      else ctx.io.stdout.write(`Session ${sessionId} now continues from entry ${result.leafId ?? entryId}.\n`);
    } finally {
      await runtime.close();
    }
  },
};

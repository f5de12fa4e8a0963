import { type Command, validateSessionIdOperand } from "./command.js";

export const sessionsDiff: Command = {
  name: "diff",
  operands: ["session"],
  summary: "Every file the session changed, as one diff: from before its first step that changed files to after its last.",
  details: [
    "Read from the snapshots the session's steps recorded (runs with snapshots on, which 'arbor run' and 'arbor serve' use), on its active path, in its own workspace. A file changed and changed back is not listed. --stat prints only the files.",
    "The id may be shortened to any prefix only one session starts with. With --json: {sessionId, workspace?, from?, to?, steps, files: [{path, status, diff}]}.",
  ],
  validate: validateSessionIdOperand,
  options: { stat: { type: "boolean", description: "Only the files and how each changed, without the diffs." } },
  run: async (ctx) => (await import("./sessions-diff-run.js")).runSessionsDiff(ctx),
};

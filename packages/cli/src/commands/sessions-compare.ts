import { UsageError } from "../errors.js";
import { type Command, checkSessionId } from "./command.js";

export const sessionsCompare: Command = {
  name: "compare",
  operands: ["a", "b"],
  summary: "Compare two branches: where they part, and what each did after (entries, tokens, cost, last answer).",
  details: [
    "A branch is a session (its active path) or <session>:<entry> (the path from the root to that entry), so two branches of one session and a session and its fork compare alike. Ids may be prefixes.",
    "With --json: {a, b, shared, partedAt} with a and b as {branch, entries, messages, tokens, cost, costKnown (false when a model answer had no price), lastAnswer}.",
  ],
  async validate(_values, operands) {
    const { splitSpec } = await import("./sessions-compare-run.js");
    for (const spec of operands) {
      const { session, entry } = splitSpec(spec);
      await checkSessionId(session);
      if (entry !== undefined && entry === "") throw new UsageError(`'${spec}': give an entry after the ':' or drop the ':'.`);
    }
  },
  options: {},
  run: async (ctx) => (await import("./sessions-compare-run.js")).runSessionsCompare(ctx),
};

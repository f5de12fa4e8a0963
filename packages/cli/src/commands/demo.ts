import type { TopCommand } from "./command.js";

export const demoCommand: TopCommand = {
  name: "demo",
  usage: "",
  summary: "Replay a recorded coding run through the real runtime, tools and store: no API key, no network.",
  details: [
    "A copy of a tiny project whose tests fail is made in a new temporary directory. The recorded model makes a three-goal plan (find, fix, check: the inspector's Goals view shows it), reads the code, runs the tests with bash (they fail), fixes the bug with edit, runs them again (they pass) and sums up. The model's answers are replayed from a cassette (demo/cassette.json, as arbor run --replay would), each checked against what the run sends; everything else is real: the tools act on the copy, and the session is stored like any other.",
    "Afterwards, look at the session with 'arbor sessions show <id>' and 'arbor sessions tree <id>'; the workspace is left in place.",
  ],
  options: {
    json: {
      type: "boolean",
      description:
        'One JSON object per line on stdout, as arbor run --json prints them; the last line is "done" or "error". The workspace is named on stderr.',
    },
  },
  run: async (io, values, operands) => (await import("./demo-run.js")).runDemoCommand(io, values, operands),
};

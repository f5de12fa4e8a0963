import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";

export const runCommand: TopCommand = {
  name: "run",
  usage: '"<prompt>"',
  summary:
    "Run one prompt to completion in a session: a new one, or --session <id> to continue one (--resume takes up a run whose process died).",
  details: [
    "The agent works in --cwd with the built-in tools (read, write, edit, list, glob, grep, bash, fetch, …) until it answers without calling a tool, --max-turns is reached, or Ctrl-C stops it. Ctrl-C keeps what the run did (the session stays consistent and can be continued); a second Ctrl-C quits at once.",
    "Permission asks (reading .env files, paths outside the workspace, a repeating tool call, or what your arbor.json rules say to ask): --yes allows each once; otherwise you are asked on the terminal ([o]nce / [a]lways / [r]eject), and when stdin is not a terminal the run stops before the tool runs (exit 3; the model is told nothing) and stderr names the 'arbor approve' command that allows it.",
    "Plan mode (PLAN_ENABLED): the agent may make a plan with plan_create; each step then runs as its own executor. With PLAN_REQUIRE_APPROVAL the plan waits for approval: --yes approves it; otherwise you are asked on the terminal ([y]es / [n]o), and when stdin is not a terminal the run stops (exit 3) with the plan waiting, and 'arbor approve <session>' approves it later.",
    "A session whose run was cut off (its process crashed or was killed) reads as interrupted: --session <id> --resume finishes that run from where it stopped, with no prompt. A prompt to such a session continues it with the prompt instead (stderr says so).",
    "A prompt for a session another process is running (arbor serve, another arbor run) steers that run: it is recorded at once, the running agent reads it before its next model call, wrapped as a message to address before carrying on, and this command exits 0 at once.",
    "Settings come from $ARBOR_HOME/arbor.json, $ARBOR_HOME/models.json, <cwd>/arbor.json and the environment; --model and --base-url override them.",
    "Exit codes: 0 done, 1 the run failed (a provider error, a broken store), 2 bad usage or bad input (empty prompt, bad flag, unknown or invalid model, missing API key, unknown session, invalid config), 3 stopped on a permission or plan nobody could answer (see 'arbor approve'), 130 interrupted.",
  ],
  options: {
    ...RUN_OPTIONS,
    json: {
      type: "boolean",
      description:
        'One JSON object per line on stdout: each run event (token, reasoning, tool_start, tool_end, llm_start, llm_end, permission_request, …) with its session_id; the last line is "done" (with status, stop_reason, steps, usage, cost and the final text) or "error". A failure before the run starts is {"error":{"code","message"}}.',
    },
  },
  run: async (io, values, operands) => (await import("./run-run.js")).runRunCommand(io, values, operands),
};

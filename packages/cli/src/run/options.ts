// `arbor run`'s flags, shared by the commands that run agents. Every command's flags are read at
// start-up (even for --version), so this module imports nothing heavy.
import type { OptionDefs } from "../args.js";

export const RUN_USAGE = 'arbor run [options] "<prompt>"';

/** The most turns `--max-turns` takes: far beyond any sane run, low enough to catch a typo. */
export const MAX_TURNS_LIMIT = 10_000;

/**
 * `--model`'s help, from the registered providers: each with what it is and the variable holding its
 * key. Loaded when `--help` shows it, so that defining the flags loads no provider.
 */
async function modelFlagHelp(): Promise<string> {
  const { PROVIDER_DEFINITIONS } = await import("@arbor/core/llm");
  const providers = PROVIDER_DEFINITIONS.map(({ name, help, env, otherCredentials }) => {
    const key = otherCredentials
      ? `${env.apiKey} or ${otherCredentials.instead}`
      : `${env.apiKey}${env.apiKeyRequired ? "" : " (optional)"}`;
    return `${name} — ${help.label}, ${key}`;
  });
  const [first] = PROVIDER_DEFINITIONS;
  return `The model as provider/model, e.g. ${first.name}/${first.help.exampleModel} (env ARBOR_MODEL, else \`model\` in arbor.json). Providers and the variable each reads its key from: ${providers.join("; ")}.`;
}

export const RUN_OPTIONS: OptionDefs = {
  model: {
    type: "string",
    valueName: "provider/model",
    description: modelFlagHelp,
  },
  "base-url": {
    type: "string",
    valueName: "url",
    description:
      "The Chat Completions server of openai-compatible/… models, e.g. http://127.0.0.1:11434/v1 for Ollama (env ARBOR_BASE_URL).",
  },
  session: {
    type: "string",
    valueName: "id",
    description:
      "Continue this session instead of starting a new one (it keeps its model and thinking level unless you give others).",
  },
  from: {
    type: "string",
    valueName: "entry",
    description:
      "With --session: continue from this entry instead of the leaf (a new branch; a user message is re-sent as a sibling). An id or a prefix of one, as 'arbor sessions tree' shows.",
  },
  "prompt-file": {
    type: "string",
    valueName: "file",
    description: "Read the prompt from this file (- for stdin; 'arbor run -' reads stdin too).",
  },
  resume: {
    type: "boolean",
    description:
      "With --session and no prompt: take up the session's run where its process died (a crash, kill -9). Calls of read, glob, grep and list left without a result run again; any other is answered to the model as interrupted.",
  },
  thinking: {
    type: "string",
    valueName: "level",
    description:
      "How hard the model thinks: off, minimal, low, medium, high or xhigh, or a budget of reasoning tokens such as 8000 (env ARBOR_THINKING, else `thinking` in arbor.json; default: the provider's). Kept by the session.",
  },
  agent: {
    type: "string",
    valueName: "name",
    description: "The agent: build (the default: all tools), plan (no edits; commands ask first), or one from the config.",
  },
  cwd: { type: "string", valueName: "dir", description: "The workspace the tools act on (default: the current directory)." },
  "max-turns": {
    type: "string",
    valueName: "n",
    description: `Stop after n model calls, 1 to ${MAX_TURNS_LIMIT} (default: the agent's limit).`,
  },
  yes: {
    type: "boolean",
    short: "y",
    description: "Allow every permission ask (once each). Without it you are asked on a terminal, and asks are denied otherwise.",
  },
  debug: {
    type: "string",
    valueName: "level",
    description:
      "Record the run's calls for the inspector's Debug tab and `GET /api/sessions/<id>/debug`: basic (tool timing), standard (also model calls, input and output cut short) or full (whole inputs and outputs). Default: off.",
  },
  record: {
    type: "string",
    valueName: "file",
    description:
      "Record every model call of the run to this cassette file (JSON, rewritten after each call), to replay it later with --replay.",
  },
  replay: {
    type: "string",
    valueName: "file",
    description:
      "Answer the run's model calls from a cassette recorded with --record, in order, with no provider and no key; a run that diverges from the recording fails naming the step.",
  },
};

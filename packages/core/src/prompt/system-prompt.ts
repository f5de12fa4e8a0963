import { providerPrompt } from "./providers/index.js";

/**
 * The system prompt, built from parts gathered elsewhere (instructions.ts does the I/O), so
 * the same inputs always give the same text: that keeps the response-cache key
 * stable and makes the prompt testable without a file system or a clock.
 */

/** A project or user instruction file (`AGENTS.md`, `SOUL.md`, …) as read from disk. */
export interface PromptFile {
  /** Where the full file is; named in the prompt so a cut file can be read in full with a tool. */
  path: string;
  content: string;
}

export interface PromptSkill {
  name: string;
  description: string;
}

export interface PromptEnvironment {
  cwd: string;
  isGitRepo: boolean;
  /** `process.platform` of the machine the tools run on. */
  platform: string;
  /** Today as `YYYY-MM-DD`, or a Date formatted in local time; passed in so the prompt is deterministic. */
  date: string | Date;
  /** `provider/model`, which also picks the family part of the default prompt (`providers/`). */
  model: string;
}

export interface SystemPromptInput {
  /** The agent's own prompt; when absent, the default Arbor prompt for `environment.model`. */
  agentPrompt?: string;
  environment: PromptEnvironment;
  /** In prompt order; instructions.ts puts general files before specific ones. */
  instructions?: readonly PromptFile[];
  skills?: readonly PromptSkill[];
  /** Extra system text for this run (`RunInput.system`). */
  system?: string;
  /** The current plan, already rendered; always last so it is the freshest thing the model reads. */
  plan?: string;
  /** MAX_PROMPT_CHARS (`config.maxPromptChars`). */
  maxChars: number;
}

export const DEFAULT_AGENT_PROMPT = [
  "You are Arbor, an agent that carries out tasks in the user's workspace with the tools you are given.",
  "Work step by step: look at the relevant files before changing them, make the smallest change that does the job, " +
    "and check the result (run the tests or the command) when you can.",
  "Prefer the dedicated tools (read, edit, grep, glob, list) over shell commands for files. " +
    "Stay inside the workspace unless the task needs otherwise.",
  "Be brief when you answer: say what you did, what you found and what is left. Do not invent file contents, " +
    "command output or results you have not seen.",
].join("\n");

/**
 * The prompt an agent without its own gets: the Arbor default, then the part for the model's family
 * (Anthropic, OpenAI, Gemini or open models; each in `providers/`), which speaks to how that family
 * calls tools.
 */
export function defaultAgentPrompt(model: string): string {
  return `${DEFAULT_AGENT_PROMPT}\n\n${providerPrompt(model).text}`;
}

const SEPARATOR = "\n\n";

/**
 * Assembles, in this order: the agent prompt (or the default), the environment block, the
 * instruction files, the skills list, the custom system text, and the current plan last.
 *
 * The cap: when the whole is over `maxChars`, parts are shrunk in this order, each only as far as
 * needed, until it fits:
 *   1. the instruction files, each cut to a fair share (short files stay whole) with a marker naming
 *      the file so the model can read the rest; if even the markers do not fit, the files are only named;
 *   2. the skills list (the skill tool lists them all);
 *   3. the custom system text, then 4. the agent prompt, each cut at the end with a marker.
 * What can be recovered from disk goes first. The environment and the plan are never cut: if they
 * alone are over `maxChars`, the prompt is them alone and exceeds the cap.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const instructions = input.instructions?.filter((file) => file.content.trim() !== "") ?? [];
  const skills = input.skills ?? [];
  const agent = input.agentPrompt?.trim() || defaultAgentPrompt(input.environment.model);
  const system = input.system?.trim() ?? "";
  const plan = input.plan?.trim() ?? "";

  const sections: Array<{ text: string; fit?: (budget: number) => string }> = [
    { text: agent, fit: (budget) => cutText(agent, budget) },
    { text: environmentBlock(input.environment) },
    { text: instructionsSection(instructions), fit: (budget) => fitInstructions(instructions, budget) },
    { text: skillsSection(skills), fit: (budget) => fitSkills(skills, budget) },
    { text: system, fit: (budget) => cutText(system, budget) },
    { text: plan ? `# Current plan\n\n${plan}` : "" },
  ];
  const join = () =>
    sections
      .map((section) => section.text)
      .filter((text) => text !== "")
      .join(SEPARATOR);

  let prompt = join();
  for (const index of [2, 3, 4, 0]) {
    if (prompt.length <= input.maxChars) break;
    const section = sections[index]!;
    if (section.text === "") continue;
    section.text = "";
    const rest = join().length;
    const budget = input.maxChars - rest - (rest > 0 ? SEPARATOR.length : 0);
    const fitted = budget > 0 ? section.fit!(budget) : "";
    section.text = fitted.length <= budget ? fitted : "";
    prompt = join();
  }
  return prompt;
}

export function environmentBlock(env: PromptEnvironment): string {
  return [
    `You are running on the model ${env.model}.`,
    "The environment you are working in:",
    "<env>",
    `  Working directory: ${env.cwd}`,
    `  Is directory a git repo: ${env.isGitRepo ? "yes" : "no"}`,
    `  Platform: ${env.platform}`,
    `  Today's date: ${typeof env.date === "string" ? env.date : localDate(env.date)}`,
    "</env>",
  ].join("\n");
}

/** `YYYY-MM-DD` in local time: "today" is the user's day, not UTC's. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const INSTRUCTIONS_HEADING = "# Instructions\n\nFollow these instructions from the user and the project.";

function instructionsSection(files: readonly PromptFile[], bodies = files.map((file) => file.content.trim())): string {
  if (files.length === 0) return "";
  const blocks = files.map((file, i) => `${fileHeader(file)}\n${bodies[i]}`);
  return [INSTRUCTIONS_HEADING, ...blocks].join(SEPARATOR);
}

function fileHeader(file: PromptFile): string {
  return `Instructions from: ${file.path}`;
}

function cutMarker(file: PromptFile, kept: number, total: number): string {
  return `[Cut to fit the prompt limit: ${kept} of ${total} characters shown. The full file is ${file.path}; read it for the rest.]`;
}

/**
 * Water-filling: the budget left after headings is shared evenly, a file shorter than its share
 * keeps all of it and passes the rest on, so one huge file cannot crowd out the small ones.
 */
function fitInstructions(files: readonly PromptFile[], budget: number): string {
  const contents = files.map((file) => file.content.trim());
  const overhead = instructionsSection(
    files,
    files.map(() => ""),
  ).length;
  let left = budget - overhead;
  const bodies: string[] = new Array(files.length).fill("");
  const order = contents.map((_, i) => i).sort((a, b) => contents[a]!.length - contents[b]!.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const content = contents[i]!;
    const share = Math.floor(left / (order.length - k));
    if (content.length <= share) {
      bodies[i] = content;
    } else {
      // The marker's numbers are at most as long as the total's, so this bound is safe.
      const room = share - cutMarker(files[i]!, content.length, content.length).length - 1;
      const kept = cutAtLine(content, Math.max(0, room));
      const marker = cutMarker(files[i]!, kept.length, content.length);
      bodies[i] = kept === "" ? marker : `${kept}\n${marker}`;
    }
    left -= bodies[i]!.length;
  }
  const fitted = instructionsSection(files, bodies);
  if (fitted.length <= budget) return fitted;
  const named = [
    INSTRUCTIONS_HEADING,
    ...files.map((file) => `Instructions from ${file.path} were left out to fit the prompt limit; read the file.`),
  ].join(SEPARATOR);
  return named.length <= budget ? named : "";
}

const SKILLS_HEADING = "# Skills\n\nLoad a skill with the skill tool when the task matches its description.";

function skillsSection(skills: readonly PromptSkill[]): string {
  if (skills.length === 0) return "";
  return [SKILLS_HEADING, "", ...skills.map(skillLine)].join("\n");
}

function skillLine(skill: PromptSkill): string {
  return `- ${skill.name}: ${skill.description.trim() || "(no description)"}`;
}

/** Keeps the first skills that fit and says how many more there are. */
function fitSkills(skills: readonly PromptSkill[], budget: number): string {
  for (let count = skills.length - 1; count >= 0; count--) {
    const more = skills.length - count;
    const note = `- … ${more} more not listed here (prompt limit); call the skill tool without a name to list all.`;
    const text = [SKILLS_HEADING, "", ...skills.slice(0, count).map(skillLine), note].join("\n");
    if (text.length <= budget) return text;
  }
  return "";
}

const TEXT_CUT_MARKER = "\n[Cut to fit the prompt limit.]";

function cutText(text: string, budget: number): string {
  if (text.length <= budget) return text;
  if (budget <= TEXT_CUT_MARKER.length) return "";
  return cutAtLine(text, budget - TEXT_CUT_MARKER.length) + TEXT_CUT_MARKER;
}

/**
 * The first `max` characters, ending at a line break when one is in the second half (a whole line
 * reads better than half of one), and never splitting a surrogate pair.
 */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = text.slice(0, max);
  const lineEnd = kept.lastIndexOf("\n");
  if (lineEnd >= max / 2) kept = kept.slice(0, lineEnd);
  else if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return kept.trimEnd();
}

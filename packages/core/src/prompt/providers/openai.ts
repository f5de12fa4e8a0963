import type { ProviderPrompt } from "./family.js";

/**
 * OpenAI's GPT, o-series and Codex models (OpenAI, Azure). They call tools as function calls whose
 * arguments are a JSON string, and tend to stop early to ask for confirmation of routine steps.
 */
export const OPENAI_PROMPT: ProviderPrompt = {
  family: "openai",
  text: [
    "# Tool calls",
    "- Keep working until the task is done before ending your turn; do not stop to ask for confirmation of routine steps.",
    "- Call tools as function calls. The arguments are one JSON object matching the tool's schema, with quotes and newlines in strings escaped.",
    "- Do not say you will call a tool without calling it, and do not print a patch for the user to apply: change files with the edit and write tools.",
  ].join("\n"),
};

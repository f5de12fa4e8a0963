import type { ProviderPrompt } from "./family.js";

/**
 * Google's Gemini models. They call tools as `functionCall` parts; they sometimes rename a
 * parameter to a spelling of their own or put the call in a code block instead of making it.
 */
export const GEMINI_PROMPT: ProviderPrompt = {
  family: "gemini",
  text: [
    "# Tool calls",
    "- Call tools with function calls only, never as code in a code block.",
    "- Use each parameter's name exactly as the tool declares it, and no fields it does not declare.",
    "- Read a file before you edit it, and give the edit tool the exact text to replace, copied from what you read.",
    "- Paths are relative to the working directory unless they are absolute.",
  ].join("\n"),
};

import type { ProviderPrompt } from "./family.js";

/**
 * Claude models (Anthropic, and Claude on Bedrock or OpenRouter). They call tools as `tool_use`
 * blocks and do well with several independent calls in one step; left alone they sometimes write
 * calls as XML-like text from their training, which is never run.
 */
export const ANTHROPIC_PROMPT: ProviderPrompt = {
  family: "anthropic",
  text: [
    "# Tool calls",
    "- Call a tool only through a tool_use block; its input is one JSON object holding exactly the tool's parameters.",
    "- When several tool calls do not depend on each other, make them in the same step.",
    "- Never write a call as text (no <function_calls> or <invoke> tags): text is shown to the user and is not run.",
    "- Before a call that changes files, say in one short sentence what it is for.",
  ].join("\n"),
};

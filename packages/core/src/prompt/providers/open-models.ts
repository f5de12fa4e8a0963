import type { ProviderPrompt } from "./family.js";

/**
 * Open-weight models (Llama, Qwen, Mistral, DeepSeek, … on Groq, Ollama, vLLM or any
 * Chat Completions server): their tool calling depends on the server's template, and a model that
 * misses it writes the call as text (`<tool_call>`, a JSON block), which is never run.
 */
export const OPEN_MODELS_PROMPT: ProviderPrompt = {
  family: "open",
  text: [
    "# Tool calls",
    "- Use the API's tool-calling interface for every tool call. Never write a call as text, as JSON in a code block or inside tags such as <tool_call>: text is shown to the user and is not run.",
    "- The arguments are one JSON object with exactly the declared parameter names and types: no comments, no trailing commas.",
    "- Make one tool call at a time unless the calls clearly do not depend on each other.",
    "- When a tool returns an error, read it and change the arguments; do not repeat the same call.",
  ].join("\n"),
};

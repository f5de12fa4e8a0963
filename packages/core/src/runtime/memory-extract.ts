import { generate } from "../llm/model-call.js";
import { scenarioModel } from "../llm/scenario.js";
import type { RunExtension, RunLaunch } from "../loop/extension.js";
import type { RunContext } from "../loop/run-context.js";
import { appendMemory, memoryPath } from "../memory/memory-files.js";
import type { Message } from "../model/message.js";

const EXTRACT_INSTRUCTION =
  "You keep an assistant's memory. From the conversation below, pick what is worth remembering in later conversations: " +
  "the user's preferences, facts about the user or the project, decisions made. Leave out what is only about this task. " +
  "Reply with one memory per line, each starting with '- ', at most 10. Reply NONE when nothing is worth keeping.";

/** Characters of the conversation the memory model reads: its end, where the outcome is. */
const CONVERSATION_CHARS = 16_000;
const MAX_MEMORIES = 10;

/**
 * MEMORY_AUTO_EXTRACT: after a top-level run that finished (`done`), the pool's `memory` model (the
 * run's model without one) reads the conversation and what it picks is appended to the workspace's
 * daily log. A failure costs only the memories: the run's outcome stands.
 */
export function memoryExtractExtension(launch: RunLaunch, arborHome: string): RunExtension {
  return {
    name: "memory",
    async around(run, loop) {
      const outcome = await loop();
      if (!run.config.memory.autoExtract || outcome.status !== "done" || launch.options.trace !== undefined) return outcome;
      try {
        await extractMemories(run, launch, arborHome);
      } catch {
        // Memories are a nicety; the run already did its work.
      }
      return outcome;
    },
  };
}

async function extractMemories(run: RunContext, launch: RunLaunch, arborHome: string): Promise<void> {
  const model = scenarioModel(launch.models, "memory", run.model)?.model;
  if (!model) return;
  const conversation = run.state.items
    .slice(0, run.state.length)
    .map((item) => render(item.message))
    .filter((line) => line !== "")
    .join("\n\n")
    .slice(-CONVERSATION_CHARS);
  if (conversation === "") return;
  const result = await generate({ clock: run.clock, retry: { ...run.retry, maxRetries: 0 }, signal: run.signal }, model, {
    prompt: [
      { role: "system", content: EXTRACT_INSTRUCTION },
      { role: "user", content: [{ type: "text", text: conversation }] },
    ],
    maxOutputTokens: 600,
  });
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  const memories = parseMemories(text);
  if (memories.length === 0) return;
  const date = new Date(run.clock.now());
  const time = date.toTimeString().slice(0, 5);
  const path = memoryPath({ cwd: run.cwd, arborHome }, "workspace", "daily", date);
  await appendMemory(path, memories.map((m) => `- [${time}] (auto) ${m}\n`).join(""));
}

/** The `- ` lines of the model's reply, one line each, bounded. */
export function parseMemories(reply: string): string[] {
  return reply
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2).trim().slice(0, 500))
    .filter((line) => line !== "")
    .slice(0, MAX_MEMORIES);
}

function render(message: Message): string {
  if (message.role !== "user" && message.role !== "assistant") return "";
  if (message.synthetic) return "";
  const text = message.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("")
    .trim();
  return text === "" ? "" : `${message.role}: ${text}`;
}

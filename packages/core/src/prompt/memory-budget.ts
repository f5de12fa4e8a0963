import type { PromptFile } from "./system-prompt.js";

/** The rough size the memory budget is counted in, as the context code counts a prompt's tokens. */
const CHARS_PER_TOKEN = 4;

/**
 * Fits the memory files (MEMORY.md files first, then daily logs, each group in prompt order) into
 * `maxTokens`. MEMORY.md is served first, then the daily logs newest first, so what is cut is the
 * oldest day. A file cut short keeps its start (MEMORY.md: the oldest, most settled facts) or its
 * end (a daily log: the latest entries), with a note saying how much was left out. Pure.
 */
export function fitMemory(files: readonly PromptFile[], isDaily: (file: PromptFile) => boolean, maxTokens: number): PromptFile[] {
  let room = maxTokens * CHARS_PER_TOKEN;
  const longTerm = files.filter((f) => !isDaily(f));
  const daily = files.filter(isDaily);
  const kept = new Map<PromptFile, PromptFile>();
  for (const file of [...longTerm, ...daily.toReversed()]) {
    if (room <= 0) break;
    const text = file.content.trim();
    if (text.length <= room) {
      kept.set(file, file);
      room -= text.length;
      continue;
    }
    const note = `[${text.length - room} earlier characters of this file were left out of the memory budget.]`;
    const cut = isDaily(file)
      ? `${note}\n${text.slice(text.length - room)}`
      : `${text.slice(0, room)}\n${note.replace("earlier", "later")}`;
    kept.set(file, { ...file, content: cut });
    room = 0;
  }
  return files.flatMap((file) => {
    const fitted = kept.get(file);
    return fitted ? [fitted] : [];
  });
}

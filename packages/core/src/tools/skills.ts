import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../file-system.js";

/** A SKILL.md found in a skill folder. */
export interface SkillInfo {
  name: string;
  description: string;
  /** The skill's folder: files the skill mentions are relative to it. */
  dir: string;
  /** Path of its SKILL.md. */
  path: string;
  source: "project" | "user";
}

/** The folders skills are looked up in, project first so a project skill overrides a user one. */
export function skillRoots(cwd: string, arborHome: string): Array<{ dir: string; source: SkillInfo["source"] }> {
  return [
    { dir: join(cwd, ".arbor", "skills"), source: "project" },
    { dir: join(arborHome, "skills"), source: "user" },
  ];
}

/**
 * Finds `<root>/*\/SKILL.md` in each root. A skill is named by its front matter `name`, else by its
 * folder; the first root to define a name wins. A missing root is simply empty. Sorted by name.
 */
export async function discoverSkills(roots: ReadonlyArray<{ dir: string; source: SkillInfo["source"] }>): Promise<SkillInfo[]> {
  const found = new Map<string, SkillInfo>();
  for (const root of roots) {
    let entries: Dirent[];
    try {
      // Listed and read synchronously like the prompt files (every run lists the skills): see `readRegularFile`.
      entries = readdirSync(root.dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      const dir = join(root.dir, entry.name);
      const path = join(dir, "SKILL.md");
      const text = readRegularFile(path)?.bytes.toString("utf8");
      if (text === undefined) continue;
      const { attributes } = parseFrontMatter(text);
      const name = attributes.name?.trim() || entry.name;
      if (found.has(name)) continue;
      found.set(name, { name, description: attributes.description?.trim() ?? "", dir, path, source: root.source });
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The YAML front matter of a Markdown file, for the flat `key: value` form skills use (quoted
 * values, and `>` / `|` blocks of indented lines). Not a YAML parser: nested maps and lists are
 * left out rather than misread.
 */
export function parseFrontMatter(text: string): { attributes: Record<string, string>; body: string } {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!normalized.startsWith("---\n")) return { attributes: {}, body: normalized };
  const end = normalized.indexOf("\n---", 3);
  if (end === -1) return { attributes: {}, body: normalized };
  const lines = normalized.slice(4, end).split("\n");
  const afterFence = normalized.indexOf("\n", end + 4);
  const body = afterFence === -1 ? "" : normalized.slice(afterFence + 1).replace(/^\n+/, "");
  const attributes: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const match = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(lines[i]!);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2]!.trim();
    if (value === ">" || value === "|" || value === ">-" || value === "|-") {
      const block: string[] = [];
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1] === "")) block.push(lines[++i]!.trim());
      value = value.startsWith(">") ? block.filter(Boolean).join(" ") : block.join("\n").trim();
    } else if (/^(["']).*\1$/.test(value)) {
      value = value.slice(1, -1);
    }
    attributes[key] = value;
  }
  return { attributes, body };
}

import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { arborHome } from "../../config/load.js";
import { ArborError } from "../../errors.js";
import { displayPath, isInside, resolveLinks, resolveToolPath } from "../paths.js";
import { discoverSkills, parseFrontMatter, type SkillInfo, skillRoots } from "../skills.js";
import { defineTool, type ToolContext } from "../tool.js";

export interface SkillToolOptions {
  /** `$ARBOR_HOME`; defaults to the environment's (else ~/.arbor), read when the tool is made. */
  arborHome?: string;
}

export const SkillInputSchema = z.strictObject({
  name: z.string().min(1).optional().describe("The skill to load. Leave out to list the available skills."),
});

/**
 * Skills are instructions for a specialised task kept in SKILL.md files, loaded only when the model
 * asks for one, so they cost no context until needed. Looked up on every call, so a skill added
 * during a run is found.
 */
export function skillTool(options: SkillToolOptions = {}) {
  const home = options.arborHome ?? arborHome();
  return defineTool({
    name: "skill",
    // Reads a skill's instructions.
    effects: "none",
    description:
      "Load a skill: instructions for a specialised task from a SKILL.md in .arbor/skills/<name>/ of the workspace " +
      "or $ARBOR_HOME/skills/<name>/. Call without name to list the skills with their descriptions, then with a name " +
      "to load one and follow it.",
    input: SkillInputSchema,
    async execute(input, ctx) {
      const skills = await discoverSkills(skillRoots(ctx.cwd, home));
      if (input.name === undefined) {
        return {
          output: skills.length === 0 ? "No skills are installed." : skills.map(describe).join("\n"),
          title: "skills",
          metadata: { skills: skills.map((s) => s.name) },
        };
      }
      const skill = skills.find((s) => s.name === input.name);
      if (!skill) {
        const names = skills.map((s) => s.name);
        throw new ArborError(
          "tool_failed",
          `No skill named "${input.name}". ${names.length > 0 ? `Available: ${names.join(", ")}.` : "No skills are installed."}`,
        );
      }
      await ctx.ask({ permission: "skill", patterns: [skill.name], metadata: { path: skill.path } });
      const { body } = parseFrontMatter(await readFile(await skillFile(ctx, skill), "utf8"));
      return {
        output: `# Skill: ${skill.name}\n\nBase directory: ${skill.dir} (paths in this skill are relative to it)\n\n${body.trim()}`,
        title: skill.name,
        metadata: { name: skill.name, dir: skill.dir, source: skill.source },
      };
    },
  });
}

/**
 * The SKILL.md to read, links followed. One that leads out of its skills folder is a file like any
 * other: outside the workspace it is an `external_directory` ask, and the `read` rules apply.
 */
async function skillFile(ctx: ToolContext, skill: SkillInfo): Promise<string> {
  const [root, real] = await Promise.all([resolveLinks(dirname(skill.dir)), resolveLinks(skill.path)]);
  if (isInside(root, real)) return real;
  const path = await resolveToolPath(ctx, skill.path, "file");
  await ctx.ask({ permission: "read", patterns: [displayPath(ctx.cwd, path)], metadata: { path, tool: "skill" } });
  return path;
}

function describe(skill: SkillInfo): string {
  return `- ${skill.name}: ${skill.description || "(no description)"}`;
}

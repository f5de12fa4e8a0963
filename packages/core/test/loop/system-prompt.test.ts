import { describe, expect, it } from "vitest";
import { buildSwitchReminder, maxTurnsReminder, planModeReminder, queuedUserReminder } from "../../src/loop/reminders.js";
import {
  buildSystemPrompt,
  DEFAULT_AGENT_PROMPT,
  environmentBlock,
  type PromptEnvironment,
  type SystemPromptInput,
} from "../../src/prompt/system-prompt.js";

const env: PromptEnvironment = {
  cwd: "/work/project",
  isGitRepo: true,
  platform: "linux",
  date: "2025-03-07",
  model: "openai-compatible/qwen3",
};

const PLAN = "1. [x] Read the parser\n2. [ ] Fix the off-by-one\n3. [ ] Run the tests";

function fullInput(overrides: Partial<SystemPromptInput> = {}): SystemPromptInput {
  return {
    agentPrompt: "AGENT-PROMPT: you are a test agent.",
    environment: env,
    instructions: [
      { path: "/home/u/.arbor/SOUL.md", content: "SOUL-TEXT be kind" },
      { path: "/work/project/AGENTS.md", content: "AGENTS-TEXT use pnpm" },
    ],
    skills: [
      { name: "pdf-extract", description: "Pull text out of PDFs" },
      { name: "release", description: "" },
    ],
    system: "CUSTOM-TEXT answer in French",
    plan: PLAN,
    maxChars: 20_000,
    ...overrides,
  };
}

describe("buildSystemPrompt", () => {
  it("orders the sections: agent prompt, environment, instructions, skills, custom text, plan last", () => {
    const prompt = buildSystemPrompt(fullInput());
    const positions = ["AGENT-PROMPT", "<env>", "SOUL-TEXT", "AGENTS-TEXT", "pdf-extract", "CUSTOM-TEXT", "# Current plan"].map(
      (needle) => prompt.indexOf(needle),
    );
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(prompt.endsWith(PLAN)).toBe(true);
    expect(prompt).toContain("Instructions from: /work/project/AGENTS.md\nAGENTS-TEXT use pnpm");
    expect(prompt).toContain("- release: (no description)");
    expect(prompt).not.toContain(DEFAULT_AGENT_PROMPT);
  });

  it("leaves out empty sections and is deterministic", () => {
    const input = fullInput({
      instructions: [{ path: "/x/AGENTS.md", content: "  \n" }],
      skills: [],
      system: "",
      plan: undefined,
    });
    const prompt = buildSystemPrompt(input);
    expect(prompt).toBe(`AGENT-PROMPT: you are a test agent.\n\n${environmentBlock(env)}`);
    expect(buildSystemPrompt(input)).toBe(prompt);
  });

  it("puts date, model, cwd, platform and git state in the environment block", () => {
    const block = environmentBlock(env);
    expect(block).toContain("openai-compatible/qwen3");
    expect(block).toContain("Working directory: /work/project");
    expect(block).toContain("Is directory a git repo: yes");
    expect(block).toContain("Platform: linux");
    expect(block).toContain("Today's date: 2025-03-07");
    const local = environmentBlock({ ...env, isGitRepo: false, date: new Date(2024, 0, 5, 23, 59) });
    expect(local).toContain("Today's date: 2024-01-05");
    expect(local).toContain("Is directory a git repo: no");
  });

  it("uses the default prompt, with a provider note, when the agent has none", () => {
    const plain = buildSystemPrompt(fullInput({ agentPrompt: undefined }));
    const claude = buildSystemPrompt(fullInput({ agentPrompt: undefined, environment: { ...env, model: "anthropic/claude-x" } }));
    const gpt = buildSystemPrompt(fullInput({ agentPrompt: undefined, environment: { ...env, model: "openai/gpt-5" } }));
    for (const prompt of [plain, claude, gpt]) expect(prompt.startsWith(DEFAULT_AGENT_PROMPT)).toBe(true);
    expect(new Set([plain, claude, gpt]).size).toBe(3);
  });

  describe("the MAX_PROMPT_CHARS cap", () => {
    const big = `${"x".repeat(60)}\n`;
    const huge = { path: "/work/project/AGENTS.md", content: big.repeat(300) };
    const small = { path: "/home/u/.arbor/USER.md", content: "USER-TEXT my name is Ana" };

    it("changes nothing under the cap", () => {
      const prompt = buildSystemPrompt(fullInput({ instructions: [small, huge] }));
      expect(prompt).toContain(huge.content.trim());
      expect(prompt).not.toContain("Cut to fit");
    });

    it("cuts the big instruction file first, marked with where the full file is, and keeps the small one whole", () => {
      const prompt = buildSystemPrompt(fullInput({ instructions: [small, huge], maxChars: 6_000 }));
      expect(prompt.length).toBeLessThanOrEqual(6_000);
      expect(prompt).toContain(small.content);
      expect(prompt).toMatch(
        /\[Cut to fit the prompt limit: \d+ of 18299 characters shown\. The full file is \/work\/project\/AGENTS\.md/,
      );
      expect(prompt).toContain("CUSTOM-TEXT answer in French");
      expect(prompt).toContain("pdf-extract");
      expect(prompt).toContain("AGENT-PROMPT");
      expect(prompt.endsWith(PLAN)).toBe(true);
      // Cut at a line break, so no half line of x's is left before the marker.
      expect(prompt).toMatch(/x{60}\n\[Cut to fit/);
    });

    it("shares the room evenly between files that are both too long", () => {
      const other = { path: "/work/project/MEMORY.md", content: "y".repeat(10_000) };
      const prompt = buildSystemPrompt(fullInput({ instructions: [huge, other], maxChars: 8_000 }));
      const xs = prompt.match(/x/g)?.length ?? 0;
      const ys = prompt.match(/y/g)?.length ?? 0;
      expect(prompt.length).toBeLessThanOrEqual(8_000);
      expect(Math.abs(xs - ys)).toBeLessThan(200);
      expect(xs).toBeGreaterThan(1_000);
    });

    it("never exceeds the cap when environment and plan fit, and never cuts either", () => {
      const plan = `${PLAN}\n${"p".repeat(500)}`;
      const skills = Array.from({ length: 40 }, (_, i) => ({ name: `skill-${i}`, description: "does a thing ".repeat(5) }));
      const input = fullInput({
        instructions: [small, huge, { path: "/a/IDENTITY.md", content: "i".repeat(3_000) }],
        skills,
        system: "custom ".repeat(300),
        agentPrompt: "agent ".repeat(300),
        plan,
      });
      const fixed = `${environmentBlock(env)}\n\n# Current plan\n\n${plan}`.length;
      const full = buildSystemPrompt({ ...input, maxChars: 1_000_000 }).length;
      for (let maxChars = fixed; maxChars <= full + 10; maxChars += 97) {
        const prompt = buildSystemPrompt({ ...input, maxChars });
        expect(prompt.length, `maxChars ${maxChars}`).toBeLessThanOrEqual(maxChars);
        expect(prompt).toContain(environmentBlock(env));
        expect(prompt.endsWith(`# Current plan\n\n${plan}`)).toBe(true);
      }
    });

    it("shrinks the skills list, then custom text, then the agent prompt, once the instructions are gone", () => {
      const skills = Array.from({ length: 30 }, (_, i) => ({ name: `skill-${i}`, description: "d".repeat(40) }));
      const input = fullInput({ instructions: [huge], skills, system: "C".repeat(1_000), agentPrompt: "A".repeat(1_000) });
      const withSkillsCut = buildSystemPrompt({ ...input, maxChars: 3_500 });
      expect(withSkillsCut).not.toContain("AGENTS.md");
      expect(withSkillsCut).toMatch(/- … \d+ more not listed here/);
      expect(withSkillsCut).toContain("C".repeat(1_000));

      const withCustomCut = buildSystemPrompt({ ...input, maxChars: 2_000 });
      expect(withCustomCut).not.toContain("skill-0");
      expect(withCustomCut).toContain("A".repeat(1_000));
      expect(withCustomCut).toContain("[Cut to fit the prompt limit.]");
      expect(withCustomCut.length).toBeLessThanOrEqual(2_000);
    });

    it("only names the files when even their cut markers do not fit", () => {
      const files = Array.from({ length: 10 }, (_, i) => ({ path: `/p/${i}/AGENTS.md`, content: "z".repeat(1_000) }));
      const input = fullInput({ instructions: files, skills: [], system: "", agentPrompt: "A" });
      const rest = buildSystemPrompt({ ...input, instructions: [] }).length;
      const prompt = buildSystemPrompt({ ...input, maxChars: rest + 1_500 });
      expect(prompt.length).toBeLessThanOrEqual(rest + 1_500);
      expect(prompt).not.toContain("z");
      for (const file of files) expect(prompt).toContain(`Instructions from ${file.path} were left out`);
    });

    it("keeps environment and plan whole even when they alone are over the cap", () => {
      const plan = "q".repeat(2_000);
      const prompt = buildSystemPrompt(fullInput({ plan, maxChars: 500 }));
      expect(prompt).toBe(`${environmentBlock(env)}\n\n# Current plan\n\n${plan}`);
    });
  });
});

describe("reminders", () => {
  it("wraps a message sent mid-run in <system-reminder> and asks to address it and continue", () => {
    const text = queuedUserReminder("Also update the changelog.");
    expect(text.startsWith("<system-reminder>\n")).toBe(true);
    expect(text.endsWith("\n</system-reminder>")).toBe(true);
    expect(text).toContain("\nAlso update the changelog.\n");
    expect(text).toMatch(/carry on/);
  });

  it("says what plan mode, the switch to build, and the last step allow", () => {
    expect(planModeReminder()).toMatch(/plan mode[\s\S]*no edits/i);
    expect(buildSwitchReminder()).toMatch(/may edit files/);
    expect(maxTurnsReminder()).toMatch(/no more tool calls[\s\S]*summarize/);
    for (const text of [planModeReminder(), buildSwitchReminder(), maxTurnsReminder()]) {
      expect(text).toMatch(/^<system-reminder>\n[\s\S]+\n<\/system-reminder>$/);
    }
  });
});

import { describe, expect, it } from "vitest";
import { applyGoalCommand } from "../../src/goal/commands.js";
import { createGoalTree } from "../../src/goal/goal-tree.js";
import { toOutline, toPrompt } from "../../src/goal/to-prompt.js";
import { NOW, planOf, play, progressLines } from "./helpers.js";

/**
 * The goal tool's worked examples from its design, with the expected lines copied from it. It prints
 * each plan as comment lines ("# [ ] 1. 分析代码"); the "# " is the document's, not the plan's.
 */
const seedLines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => line.replace(/^# /, ""));

describe("the goal tool's five worked examples", () => {
  const mission = "实现用户认证功能";
  const steps = [
    {
      title: "1. 默认行为:添加顶层目标(无 focus)",
      call: { add: "分析代码, 实现功能, 测试" },
      expected: `
# [ ] 1. 分析代码
# [ ] 2. 实现功能
# [ ] 3. 测试`,
    },
    {
      title: "2. 拆解子任务",
      call: { add: "设计接口, 实现代码", under: "2" },
      expected: `
# [ ] 1. 分析代码
# [ ] 2. 实现功能
# [ ] 2.1 设计接口
# [ ] 2.2 实现代码
# [ ] 3. 测试`,
    },
    {
      title: "3. 追加同层级任务",
      call: { add: "编写文档", after: "3" },
      expected: `
# [ ] 1. 分析代码
# [ ] 2. 实现功能
# [ ] 2.1 设计接口
# [ ] 2.2 实现代码
# [ ] 3. 测试
# [ ] 4. 编写文档`,
    },
    {
      title: "4. 追加子任务(目标2已有子任务)",
      call: { add: "编写单元测试", under: "2" },
      expected: `
# [ ] 1. 分析代码
# [ ] 2. 实现功能
# [ ] 2.1 设计接口
# [ ] 2.2 实现代码
# [ ] 2.3 编写单元测试
# [ ] 3. 测试
# [ ] 4. 编写文档`,
    },
    {
      title: "5. 使用 after 在子任务中间插入",
      call: { add: "代码审查", after: "2.2" },
      expected: `
# [ ] 1. 分析代码
# [ ] 2. 实现功能
# [ ] 2.1 设计接口
# [ ] 2.2 实现代码
# [ ] 2.3 代码审查
# [ ] 2.4 编写单元测试
# [ ] 3. 测试
# [ ] 4. 编写文档`,
    },
  ];

  it("renders each step exactly as the seed shows it, line by line", () => {
    let tree = createGoalTree(mission);
    for (const step of steps) {
      tree = applyGoalCommand(tree, step.call, NOW).tree;
      const prompt = toPrompt(tree);
      expect(prompt.split("\n").slice(0, 4), step.title).toEqual([
        "## Current Plan",
        `**Mission**: ${mission}`,
        "**Current**: (none)",
        "**Progress**:",
      ]);
      expect(progressLines(prompt), step.title).toEqual(seedLines(step.expected));
    }
  });

  it("gives ids in creation order while the list keeps display order (example 5's goal is id 8, shown as 2.3)", () => {
    const tree = planOf(mission, ...steps.map((step) => step.call));
    expect(tree.goals.map((g) => [g.id, g.parentId, g.description])).toEqual([
      ["1", null, "分析代码"],
      ["2", null, "实现功能"],
      ["4", "2", "设计接口"],
      ["5", "2", "实现代码"],
      ["8", "2", "代码审查"],
      ["7", "2", "编写单元测试"],
      ["3", null, "测试"],
      ["6", null, "编写文档"],
    ]);
    expect(tree.nextId).toBe(9);
  });
});

describe("the Current Plan block (展示策略)", () => {
  it("renders the worked example exactly: summaries, the focus path in full, other subtasks collapsed", () => {
    const tree = planOf(
      "实现用户认证功能",
      { add: "分析代码, 实现功能, 测试" },
      { add: "设计接口, 实现登录接口, 实现注册接口", under: "2" },
      { add: "单元测试, 集成测试, 端到端测试", under: "3" },
      { focus: "1" },
      { done: "用户模型在 models/user.py,使用 bcrypt 加密" },
      { focus: "2.1" },
      { done: "API 设计文档完成,使用 REST 风格" },
      { focus: "2.2" },
    );
    const expected = `
## Current Plan
**Mission**: 实现用户认证功能
**Current**: 2.2 实现登录接口
**Progress**:
[✓] 1. 分析代码
→ 用户模型在 models/user.py,使用 bcrypt 加密
[→] 2. 实现功能
[✓] 2.1 设计接口
→ API 设计文档完成,使用 REST 风格
[→] 2.2 实现登录接口 ← current
[ ] 2.3 实现注册接口
[ ] 3. 测试
(3 subtasks)`;
    expect(toPrompt(tree).split("\n")).toEqual(expected.trim().split("\n"));
  });
});

describe("before/after backtracking (Before/After 回溯)", () => {
  const before = () =>
    planOf(
      "实现用户认证功能",
      { add: "分析代码, 实现方案 A, 测试" },
      { focus: "1" },
      { done: "用户模型在 models/user.py" },
      { focus: "2" },
    );

  /** The seed annotates its data view in Chinese ("内部ID", "新建" = newly created); ours says "id". */
  const seedDataLines = (text: string) =>
    text
      .trim()
      .split("\n")
      .map((line) => line.replace("内部ID", "id").replace(", 新建", ""));

  it("starts from the worked example's Before tree", () => {
    expect(toOutline(before()).split("\n")).toEqual(
      seedDataLines(`
[✓] 1. 分析代码 (内部ID: 1)
[→] 2. 实现方案 A (内部ID: 2)
[ ] 3. 测试 (内部ID: 3)`),
    );
  });

  const afterData = seedDataLines(`
[✓] 1. 分析代码 (内部ID: 1)
[✗] 2. 实现方案 A (内部ID: 2, abandoned)
[→] 3. 实现方案 B (内部ID: 4, 新建)
[ ] 4. 测试 (内部ID: 3)`);

  const afterPrompt = `
[✓] 1. 分析代码
[→] 2. 实现方案 B ← current
[ ] 3. 测试`
    .trim()
    .split("\n");

  it("abandon + add after the abandoned goal, then focus: the worked example's After tree and to_prompt() output", () => {
    const tree = play(before(), { abandon: "尝试方案 A,因依赖问题失败", add: "实现方案 B", after: "2" }, { focus: "2" });
    expect(toOutline(tree).split("\n")).toEqual(afterData);
    const progress = progressLines(toPrompt(tree));
    // The worked to_prompt() example lists only the goal lines; the summary under a completed goal
    // (its own display rule) is the one line it leaves out.
    expect(progress.filter((line) => line.startsWith("["))).toEqual(afterPrompt);
    expect(progress).toEqual([afterPrompt[0], "→ 用户模型在 models/user.py", afterPrompt[1], afterPrompt[2]]);
    const abandoned = tree.goals.find((g) => g.id === "2");
    expect(abandoned).toMatchObject({ status: "abandoned", summary: "尝试方案 A,因依赖问题失败" });
  });

  it("reaches the same tree in three separate calls (abandon; add after 1; focus)", () => {
    const together = play(before(), { abandon: "尝试方案 A,因依赖问题失败", add: "实现方案 B", after: "2" }, { focus: "2" });
    const apart = play(before(), { abandon: "尝试方案 A,因依赖问题失败" }, { add: "实现方案 B", after: "1" }, { focus: "2" });
    expect(toOutline(apart).split("\n")).toEqual(afterData);
    expect(apart).toEqual(together);
  });
});

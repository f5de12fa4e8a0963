import { planEnterTool, planExitTool } from "../agents/mode-switch.js";
import { defineGoalTool } from "../goal/goal-tool.js";
import { planCreateTool, planUpdateTool } from "../plan/plan-tools.js";
import { questionTool } from "../questions/question-tool.js";
import { delegateTool, exploreTool } from "../subagents/sub-agent-tools.js";
import { MemoryTodoStore, type TodoStore } from "../todos/todo-store.js";
import { todoReadTool } from "../todos/todoread.js";
import { todoWriteTool } from "../todos/todowrite.js";
import { type CoreToolsOptions, coreTools } from "../tools/builtins.js";
import type { AnyToolDefinition } from "../tools/tool.js";

export interface BuiltinToolsOptions extends CoreToolsOptions {
  /** Todo lists per session, for the todo tools called outside a run; a fresh in-memory store when left out. */
  todos?: TodoStore;
}

/**
 * Every built-in tool in one list, the features' with the core ones, for a caller that builds the
 * runtime's tool set itself (`createRuntime({ tools })`). A runtime left to its defaults needs none
 * of this: it has the core tools, and each feature's extension offers its own.
 */
export function builtinTools(options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
  const todos = options.todos ?? new MemoryTodoStore();
  const core = coreTools(options);
  // The order the set has always been listed in: the todo tools before `skill`, the features' last.
  const skill = core.findIndex((tool) => tool.name === "skill");
  return [
    ...core.slice(0, skill),
    todoWriteTool({ todos }),
    todoReadTool({ todos }),
    ...core.slice(skill),
    defineGoalTool(),
    exploreTool(),
    delegateTool(),
    // Hidden by plan mode's rules where it is off (PLAN_ENABLED, sub-agents).
    planCreateTool(),
    planUpdateTool(),
    questionTool(),
    // Denied by the default rules; the build and plan presets allow what they imply.
    planEnterTool(),
    planExitTool(),
  ];
}

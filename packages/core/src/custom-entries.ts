import { z } from "zod";
import { AGENT_CHANGE_ENTRY_TYPE, AgentChangeSchema } from "./agents/mode-switch.js";
import { CONTINUE_ENTRY_TYPE } from "./context/compactor.js";
import { GOAL_TREE_ENTRY_TYPE } from "./goal/goal-path.js";
import { GoalTreeSchema } from "./goal/goal-tree.js";
import { INHERIT_ENTRY_TYPE, InheritDataSchema } from "./loop/inherited-context.js";
import { RUN_ERROR_ENTRY_TYPE, RunErrorDataSchema } from "./loop/run-error.js";
import type { Entry } from "./model/entry.js";
import { APPROVAL_ENTRY_TYPE, ApprovalSchema } from "./permissions/approvals.js";
import { PLAN_ENTRY_TYPE, PlanRecordSchema } from "./plan/plan-record.js";
import { DELETE_ENTRY_TYPE, DeleteDataSchema } from "./session/delete-entry.js";
import { GOAL_COMPACTION_ENTRY_TYPE, GoalCompactionDataSchema } from "./session/goal-collapse.js";
import { PRUNE_ENTRY_TYPE, PruneDataSchema } from "./session/prune-entry.js";
import {
  TOOL_CHECKPOINT_ENTRY_TYPE,
  TOOL_STARTED_ENTRY_TYPE,
  ToolCheckpointSchema,
  ToolStartedSchema,
} from "./session/tool-started-entry.js";
import {
  PATCH_ENTRY_TYPE,
  PatchDataSchema,
  REVERT_ENTRY_TYPE,
  RevertDataSchema,
  UNREVERT_ENTRY_TYPE,
  UnrevertDataSchema,
} from "./snapshot/snapshot-entry.js";
import { TODOS_ENTRY_TYPE, TodosRecordSchema } from "./todos/todo-record.js";

/**
 * Every `custom` entry Arbor writes, by `customType`, with the zod schema of its `data`: the one
 * list a reader of a session (a viewer, an export, a migration) needs. Each name is in the `arbor.`
 * namespace, so entries a plugin writes under its own names never collide with these. The schemas
 * live beside the feature that writes them; this catalogue only gathers them.
 */
export const CUSTOM_ENTRY_SCHEMAS = {
  [AGENT_CHANGE_ENTRY_TYPE]: AgentChangeSchema,
  [APPROVAL_ENTRY_TYPE]: ApprovalSchema,
  [DELETE_ENTRY_TYPE]: DeleteDataSchema,
  [GOAL_COMPACTION_ENTRY_TYPE]: GoalCompactionDataSchema,
  [GOAL_TREE_ENTRY_TYPE]: z.looseObject({ tree: GoalTreeSchema }),
  [INHERIT_ENTRY_TYPE]: InheritDataSchema,
  [PATCH_ENTRY_TYPE]: PatchDataSchema,
  [PLAN_ENTRY_TYPE]: PlanRecordSchema,
  [PRUNE_ENTRY_TYPE]: PruneDataSchema,
  [REVERT_ENTRY_TYPE]: RevertDataSchema,
  [RUN_ERROR_ENTRY_TYPE]: RunErrorDataSchema,
  [TODOS_ENTRY_TYPE]: TodosRecordSchema,
  [TOOL_CHECKPOINT_ENTRY_TYPE]: ToolCheckpointSchema,
  [TOOL_STARTED_ENTRY_TYPE]: ToolStartedSchema,
  [UNREVERT_ENTRY_TYPE]: UnrevertDataSchema,
} as const;

export type CustomEntryType = keyof typeof CUSTOM_ENTRY_SCHEMAS;

/** The `custom_message` entries Arbor writes (their content is what the model reads; they carry no data). */
export const CUSTOM_MESSAGE_TYPES = [CONTINUE_ENTRY_TYPE] as const;

/** A custom entry of the catalogue with its data parsed. */
export type KnownCustomEntry = {
  [K in CustomEntryType]: { customType: K; data: z.infer<(typeof CUSTOM_ENTRY_SCHEMAS)[K]>; entry: Entry };
}[CustomEntryType];

export function isCustomEntryType(value: string): value is CustomEntryType {
  return Object.hasOwn(CUSTOM_ENTRY_SCHEMAS, value);
}

/**
 * The entry's data parsed by its catalogue schema; undefined for other entries, other custom types
 * (a plugin's) and damaged data, which a reader skips rather than fails on. Pure.
 */
export function parseCustomEntry(entry: Entry): KnownCustomEntry | undefined {
  if (entry.type !== "custom" || !isCustomEntryType(entry.customType)) return undefined;
  const parsed = CUSTOM_ENTRY_SCHEMAS[entry.customType].safeParse(entry.data);
  return parsed.success ? ({ customType: entry.customType, data: parsed.data, entry } as KnownCustomEntry) : undefined;
}

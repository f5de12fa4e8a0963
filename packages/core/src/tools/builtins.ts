import { join } from "node:path";
import { arborHome } from "../config/load.js";
import { defineGoalTool } from "../goal/goal-tool.js";
import type { Embedder } from "../knowledge/embedder.js";
import { KnowledgeBase } from "../knowledge/knowledge-base.js";
import { planCreateTool, planUpdateTool } from "../plan/plan-tools.js";
import type { BlobStore } from "./blob-store.js";
import { type BashToolOptions, bashTool } from "./builtin/bash.js";
import { editTool } from "./builtin/edit.js";
import { type FetchToolOptions, fetchTool } from "./builtin/fetch.js";
import { globTool } from "./builtin/glob.js";
import { grepTool } from "./builtin/grep.js";
import { searchKnowledgeBaseTool } from "./builtin/knowledge.js";
import { listTool } from "./builtin/list.js";
import { memorySearchTool, memoryWriteTool } from "./builtin/memory.js";
import { pythonReplTool } from "./builtin/python-repl.js";
import { readTool } from "./builtin/read.js";
import { skillTool } from "./builtin/skill.js";
import { delegateTool, exploreTool } from "./builtin/sub-agents.js";
import { todoReadTool } from "./builtin/todoread.js";
import { todoWriteTool } from "./builtin/todowrite.js";
import { writeTool } from "./builtin/write.js";
import type { OutputLimits } from "./output-cap.js";
import { PythonRepls } from "./python/python-repls.js";
import { MemoryTodoStore, type TodoStore } from "./todo-store.js";
import type { AnyToolDefinition } from "./tool.js";

export interface BuiltinToolsOptions {
  /** The registry's blob store: read pages through saved outputs with it, bash cuts its own output into it. */
  blobs?: BlobStore;
  limits?: OutputLimits;
  /** Todo lists per session; a fresh in-memory store when left out. */
  todos?: TodoStore;
  /** `$ARBOR_HOME` for user-level skills. */
  arborHome?: string;
  bash?: Omit<BashToolOptions, "blobs" | "limits">;
  fetch?: FetchToolOptions;
  /** The runs' Python sessions (the runtime ends each with its run); fresh ones when left out. */
  python?: PythonRepls;
  /** The documents `search_knowledge_base` searches; `$ARBOR_HOME/knowledge` when left out. */
  knowledge?: KnowledgeBase;
  /** The embedding model (`knowledge.embeddingModel`) the default knowledge base ranks by meaning with. */
  embedder?: Embedder | undefined;
  /** The clock memory entries are dated with. */
  now?: () => number;
}

/** The built-in tool set, configured once per runtime so every run shares its stores. */
export function builtinTools(options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
  const todos = options.todos ?? new MemoryTodoStore();
  const memory = { arborHome: options.arborHome ?? arborHome(process.env), ...(options.now ? { now: options.now } : {}) };
  return [
    readTool({ ...(options.blobs ? { blobs: options.blobs } : {}) }),
    writeTool(),
    editTool(),
    listTool(),
    globTool(),
    grepTool(),
    bashTool({
      ...options.bash,
      ...(options.blobs ? { blobs: options.blobs } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    }),
    fetchTool(options.fetch),
    pythonReplTool({ repls: options.python ?? new PythonRepls() }),
    memoryWriteTool(memory),
    memorySearchTool(memory),
    searchKnowledgeBaseTool({
      knowledge: options.knowledge ?? new KnowledgeBase(join(memory.arborHome, "knowledge"), { embedder: options.embedder }),
    }),
    todoWriteTool({ todos }),
    todoReadTool({ todos }),
    skillTool({ ...(options.arborHome ? { arborHome: options.arborHome } : {}) }),
    defineGoalTool(),
    exploreTool(),
    delegateTool(),
    // Offered only where plan mode is on (PLAN_ENABLED); the run hides them elsewhere.
    planCreateTool(),
    planUpdateTool(),
  ];
}

import { join } from "node:path";
import { arborHome } from "../config/load.js";
import type { Embedder } from "../knowledge/embedder.js";
import type { KnowledgeBase } from "../knowledge/knowledge-base.js";
import type { Sandbox } from "../sandbox/sandbox.js";
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
import { writeTool } from "./builtin/write.js";
import type { OutputLimits } from "./output-cap.js";
import { PythonRepls } from "./python/python-repls.js";
import type { AnyToolDefinition } from "./tool.js";

export interface CoreToolsOptions {
  /** The registry's blob store: read pages through saved outputs with it, bash cuts its own output into it. */
  blobs?: BlobStore;
  limits?: OutputLimits;
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
  /** The sandbox bash and python_repl run their processes in (unless `bash` or `python` bring their own). */
  sandbox?: Sandbox;
}

/**
 * The tools of the workspace, the web, memory and skills, configured once per runtime so every run
 * shares its stores: the runtime's own tool set. A feature's tools (the goal tree's, plan mode's, the
 * sub-agents', the todo list's) are offered by that feature's extension instead.
 */
export function coreTools(options: CoreToolsOptions = {}): AnyToolDefinition[] {
  const memory = { arborHome: options.arborHome ?? arborHome(process.env), ...(options.now ? { now: options.now } : {}) };
  // The default knowledge base (its index and search modules) loads at the first search: most runs make none.
  let knowledge: Promise<KnowledgeBase> | undefined;
  const defaultKnowledge = () =>
    (knowledge ??= import("../knowledge/knowledge-base.js").then(
      ({ KnowledgeBase }) => new KnowledgeBase(join(memory.arborHome, "knowledge"), { embedder: options.embedder }),
    ));
  return [
    readTool({ ...(options.blobs ? { blobs: options.blobs } : {}) }),
    writeTool(),
    editTool(),
    listTool(),
    globTool(),
    grepTool(),
    bashTool({
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...options.bash,
      ...(options.blobs ? { blobs: options.blobs } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    }),
    fetchTool(options.fetch),
    pythonReplTool({ repls: options.python ?? new PythonRepls(options.sandbox ? { sandbox: options.sandbox } : {}) }),
    memoryWriteTool(memory),
    memorySearchTool(memory),
    searchKnowledgeBaseTool({ knowledge: options.knowledge ?? defaultKnowledge }),
    skillTool({ ...(options.arborHome ? { arborHome: options.arborHome } : {}) }),
  ];
}

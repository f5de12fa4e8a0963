import type { CommandGroup } from "./command.js";
import { sessionsCompare } from "./sessions-compare.js";
import { sessionsDiff } from "./sessions-diff.js";
import { sessionsExport } from "./sessions-export.js";
import { sessionsFork } from "./sessions-fork.js";
import { sessionsImport } from "./sessions-import.js";
import { sessionsLabel } from "./sessions-label.js";
import { sessionsLeaf } from "./sessions-leaf.js";
import { sessionsList } from "./sessions-list.js";
import { sessionsReplay } from "./sessions-replay.js";
import { sessionsRm } from "./sessions-rm.js";
import { sessionsShow } from "./sessions-show.js";
import { sessionsSummary } from "./sessions-summary.js";
import { sessionsTree } from "./sessions-tree.js";

export const sessionsGroup: CommandGroup = {
  name: "sessions",
  summary: "List, inspect, summarize, branch, replay, label, compare, diff, delete, export and import stored sessions.",
  commands: [
    sessionsList,
    sessionsShow,
    sessionsSummary,
    sessionsTree,
    sessionsLeaf,
    sessionsFork,
    sessionsReplay,
    sessionsLabel,
    sessionsCompare,
    sessionsDiff,
    sessionsRm,
    sessionsExport,
    sessionsImport,
  ],
};

import type { CommandGroup } from "./command.js";
import { sessionsExport } from "./sessions-export.js";
import { sessionsImport } from "./sessions-import.js";
import { sessionsList } from "./sessions-list.js";
import { sessionsRm } from "./sessions-rm.js";
import { sessionsShow } from "./sessions-show.js";
import { sessionsTree } from "./sessions-tree.js";

export const sessionsGroup: CommandGroup = {
  name: "sessions",
  summary: "List, inspect, delete, export and import stored sessions.",
  commands: [sessionsList, sessionsShow, sessionsTree, sessionsRm, sessionsExport, sessionsImport],
};

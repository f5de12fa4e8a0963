export { messageSummary } from "./message-summary.js";
export { type ForeignRuns, type ReadFrom, RunEventLog, type RunEventLogOptions } from "./run-event-log.js";
export { RunEventReader, type RunEventStep } from "./run-event-reader.js";
export { RUN_EVENT_PREFIX, type RunEventFrame, runEventFromRecord, runEventInput } from "./run-event-records.js";
export * from "./watch-events.js";
export {
  type GoalTreeSource,
  WatchHub,
  type WatchHubOptions,
  type WatchListener,
  type WatchOptions,
  watchEventFromRecord,
} from "./watch-hub.js";

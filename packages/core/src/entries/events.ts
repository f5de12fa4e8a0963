/**
 * `@arbor/core/events`: reading what runs wrote to the event log after the fact — the debug records
 * and the run-event stream by step. Used by the server (replaying a run to a late watcher) and the CLI.
 */
export { DEBUG_LEVELS, DebugLevelSchema, DebugRecordSchema, readDebugRecords } from "../events/debug-records.js";
export { RunEventReader, type RunEventStep } from "../events/run-event-reader.js";
export { RUN_EVENT_PREFIX, type RunEventFrame, runEventFromRecord } from "../events/run-event-records.js";

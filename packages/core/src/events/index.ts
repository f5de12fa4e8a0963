export { messageSummary } from "./message-summary.js";
export * from "./watch-events.js";
export { WatchHub, type WatchHubOptions, type WatchListener, type WatchOptions, watchEventFromRecord } from "./watch-hub.js";

export * from "./message-trace.js";
export * from "./timeline.js";
export * from "./timeline-read.js";
export * from "./tool-stats.js";
export * from "./trace-page.js";
export * from "./trace-query.js";
export * from "./trace-time.js";

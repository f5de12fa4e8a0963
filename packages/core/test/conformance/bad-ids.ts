/** Ids that must be refused before anything reaches a path or a query. */
export const BAD_IDS: Array<[string, unknown]> = [
  ["path traversal", "../x"],
  ["slash", "a/b"],
  ["empty", ""],
  ["10 KB", "a".repeat(10 * 1024)],
  ["control characters", "abc\u0000def"],
  ["newline", "abc\ndef"],
  ["dot", "."],
  ["dot dot", ".."],
  ["not a string", 42],
];

/** What `sessions export --format` takes; apart from the command so its implementation needs no import back. */
export const FORMATS = ["arbor", "pi", "atif"] as const;
export type ExportFormat = (typeof FORMATS)[number];

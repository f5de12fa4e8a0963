// Types of scripts/mcp-conformance-scenarios.mjs, for the test that reads its tables.
/** Server scenarios that do not apply to Arbor, by name: why. */
export declare const SERVER_NOT_APPLICABLE: Record<string, string>;
/** Client scenarios that do not apply to Arbor, by name: why. */
export declare const CLIENT_NOT_APPLICABLE: Record<string, string>;

import { describe } from "vitest";
import { asksSuite } from "./asks-suite.js";
import { entriesSuite } from "./entries-suite.js";
import type { MakeHarness } from "./harness.js";
import { leaseSuite } from "./lease-suite.js";
import { livePathSuite } from "./live-path-suite.js";
import { parentsSuite } from "./parents-suite.js";
import { purgeSuite } from "./purge-suite.js";
import { resumeSuite } from "./resume-suite.js";
import { runEventsSuite } from "./run-events-suite.js";
import { sessionsSuite } from "./sessions-suite.js";
import { tokensSuite } from "./tokens-suite.js";

export type { MakeHarness, StoreHarness } from "./harness.js";

/**
 * The behaviour every Store backend must share; each backend's test file calls this once. `skip` reports
 * the suite as skipped, for a backend whose server this run cannot reach.
 */
export function storeConformance(name: string, makeHarness: MakeHarness, opts: { skip?: boolean } = {}): void {
  describe.skipIf(opts.skip ?? false)(`store conformance: ${name}`, () => {
    sessionsSuite(makeHarness);
    entriesSuite(makeHarness);
    purgeSuite(makeHarness);
    livePathSuite(makeHarness);
    leaseSuite(makeHarness);
    parentsSuite(makeHarness);
    runEventsSuite(makeHarness);
    resumeSuite(makeHarness);
    asksSuite(makeHarness);
    tokensSuite(makeHarness);
  });
}

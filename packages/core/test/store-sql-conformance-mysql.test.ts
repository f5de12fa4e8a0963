import { storeConformance } from "./conformance/store-conformance.js";
import { SQL_KINDS, sqlHarness } from "./helpers/sql-databases.js";

// Skipped (and reported by the test setup) when no MySQL server answered; ARBOR_TEST_REQUIRE=mysql makes that fail.
// One database for the file, emptied between tests: MySQL's DDL is what made this suite slow (see sqlHarness).
storeConformance("mysql", sqlHarness("mysql", undefined, { shared: true }), { skip: !SQL_KINDS.includes("mysql") });

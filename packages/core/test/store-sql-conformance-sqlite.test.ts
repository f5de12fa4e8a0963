import { storeConformance } from "./conformance/store-conformance.js";
import { sqlHarness } from "./helpers/sql-databases.js";

// One file per SQL backend, so the backends' conformance runs share the test workers.
storeConformance("sqlite", sqlHarness("sqlite"));
// fsync durability sends SQLite appends through the group-commit path.
storeConformance("sqlite (fsync, group commit)", sqlHarness("sqlite", "fsync"));

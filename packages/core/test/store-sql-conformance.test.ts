import { storeConformance } from "./conformance/store-conformance.js";
import { SQL_KINDS, sqlHarness } from "./helpers/sql-databases.js";

storeConformance("sqlite", sqlHarness("sqlite"));
if (SQL_KINDS.includes("mysql")) storeConformance("mysql", sqlHarness("mysql"));
storeConformance("postgres", sqlHarness("postgres"));
// fsync durability sends SQLite appends through the group-commit path.
storeConformance("sqlite (fsync, group commit)", sqlHarness("sqlite", "fsync"));

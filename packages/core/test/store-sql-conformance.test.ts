import { storeConformance } from "./conformance/store-conformance.js";
import { sqlHarness } from "./helpers/sql-databases.js";

storeConformance("sqlite", sqlHarness("sqlite"));
storeConformance("mysql", sqlHarness("mysql"));
storeConformance("postgres", sqlHarness("postgres"));

import { storeConformance } from "./conformance/store-conformance.js";
import { sqlHarness } from "./helpers/sql-databases.js";

storeConformance("postgres", sqlHarness("postgres"));

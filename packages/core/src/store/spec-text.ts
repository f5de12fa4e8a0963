// The text forms of a store spec, apart from the schema of spec objects: a command that is given (or
// defaults to) a spec string opens its store without loading the validation library, which costs more
// start-up time than the rest of a file store's modules together.
import { ArborError } from "../errors.js";

/** What a spec string can say: where the store is; options (durability, limits) need a spec object. */
export type StoreSpecText =
  | { kind: "file"; dir: string }
  | { kind: "sqlite"; file: string }
  | { kind: "mysql"; url: string }
  | { kind: "postgres"; url: string };

/**
 * The `--store` / `ARBOR_STORE` forms: a directory (file store), `file:<dir>`, `sqlite:<file>`
 * (`sqlite::memory:` for a throwaway store), `mysql://…` (or `mariadb://…`), `postgres://…` or
 * `postgresql://…`. An unknown `scheme:` prefix is an error, never taken for a directory.
 */
export function storeSpecFromText(spec: string): StoreSpecText {
  const s = spec.trim();
  if (s === "")
    throw new ArborError(
      "invalid_store_spec",
      "The store spec is empty: give a directory, sqlite:<file>, mysql://… or postgres://….",
    );
  if (s.startsWith("mysql://")) return { kind: "mysql", url: s };
  // MariaDB speaks the MySQL protocol; the driver knows only the mysql scheme.
  if (s.startsWith("mariadb://")) return { kind: "mysql", url: `mysql://${s.slice("mariadb://".length)}` };
  if (s.startsWith("postgres://") || s.startsWith("postgresql://")) return { kind: "postgres", url: s };
  if (s.startsWith("sqlite:")) {
    const file = s.slice("sqlite:".length);
    if (file === "") throw new ArborError("invalid_store_spec", "sqlite: needs a file name, e.g. sqlite:./arbor.db");
    return { kind: "sqlite", file };
  }
  if (s.startsWith("file:")) {
    const dir = s.slice("file:".length);
    if (dir === "") throw new ArborError("invalid_store_spec", "file: needs a directory, e.g. file:./sessions");
    return { kind: "file", dir };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    throw new ArborError(
      "invalid_store_spec",
      `Unsupported store URL scheme in ${JSON.stringify(s)}: use mysql://, mariadb://, postgres:// or sqlite:<file>.`,
    );
  }
  // `sqlite3:./x.db` or `foo:bar` is a mistyped scheme far more often than a directory with a colon
  // in its name; one letter is a Windows drive (`C:\\x`). A real such directory: `./foo:bar`.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(s)?.[1];
  if (scheme !== undefined) {
    const guess = scheme.toLowerCase().startsWith("sql") ? " (did you mean sqlite:?)" : "";
    throw new ArborError(
      "invalid_store_spec",
      `Unknown store scheme '${scheme}:' in ${JSON.stringify(s)}${guess}: use a directory, file:<dir>, sqlite:<file>, mysql://, mariadb:// or postgres://; write ./${s} for a directory with a colon in its name.`,
    );
  }
  return { kind: "file", dir: s };
}

/**
 * The `default` of a switch over a closed union (run events, stream ends, message parts): TypeScript
 * checks at compile time that every case is handled, because only `never` is accepted here; at run
 * time a value from a newer peer still fails loudly, naming what it was. One function, so each
 * protocol's translator does not repeat the same four lines.
 */
export function unreachable(what: string, value: never): never {
  throw new Error(`unknown ${what} ${JSON.stringify(value)}`);
}

import type { OptionValues } from "../args.js";
import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { readInput } from "../files.js";
import type { Io } from "../io.js";
import { TOKEN_ENV } from "./serve-defaults.js";

/**
 * The API token for `arbor serve`: `--token` (visible to anyone who can list processes), else the
 * first line of `--token-file` (`-` for stdin), else `$ARBOR_TOKEN`; undefined when none is given.
 * Giving both flags, an empty token or one with spaces is a usage error.
 */
export async function serveToken(io: Io, values: OptionValues): Promise<string | undefined> {
  const flag = stringOption(values, "token");
  const file = stringOption(values, "token-file");
  if (flag !== undefined && file !== undefined) throw new UsageError("give --token or --token-file, not both.");
  let token: string | undefined;
  let source: string;
  if (flag !== undefined) {
    token = flag;
    source = "--token";
  } else if (file !== undefined) {
    // The first line: a file written by `echo` or an editor ends with a newline that is not part of the token.
    const text = await readInput(io, file, "Give --token-file a readable file holding the token.");
    token = (text.split(/\r?\n/, 1)[0] ?? "").trim();
    source = `--token-file ${file}`;
  } else {
    token = io.env[TOKEN_ENV];
    source = TOKEN_ENV;
    // An empty variable counts as unset, as with the other ARBOR_* variables.
    if (token === "") token = undefined;
  }
  if (token !== undefined && (token === "" || /\s/.test(token))) {
    throw new UsageError(`the token from ${source} must be non-empty and contain no whitespace.`);
  }
  return token;
}

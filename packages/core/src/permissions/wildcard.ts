/**
 * Permission-pattern matching (pure): `*` matches any run of characters (slashes included, so
 * `*.env` covers `config/.env` and `/abs/.env`), `?` exactly one, everything else itself; the whole
 * text must match. As in OpenCode, a pattern ending in " *" also matches without the arguments, so
 * `git *` covers a bare `git`.
 *
 * Written as the classic greedy two-pointer match rather than a RegExp, so patterns need no escaping
 * and a match is O(pattern × text) at worst with no backtracking blow-up.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (pattern.endsWith(" *") && matchFrom(pattern.slice(0, -2), text)) return true;
  return matchFrom(pattern, text);
}

function matchFrom(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const pc = pattern[p];
    if (pc === "*") {
      starP = p++;
      starT = t;
    } else if (pc !== undefined && (pc === "?" || pc === text[t])) {
      p++;
      t++;
    } else if (starP !== -1) {
      // Let the last star swallow one more character and retry from there.
      p = starP + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

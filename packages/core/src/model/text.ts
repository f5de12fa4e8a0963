/**
 * The first `max` characters of `text`, followed by `...` when anything was cut: for descriptions,
 * step results and previews that must stay short in a stored entry, a run event or a prompt.
 *
 * The mark is ASCII on purpose. These texts go into every step's entries and run events, and V8 keeps
 * a string holding any character above U+00FF (as `…` is) as UTF-16: the cut text, each JSON line it is
 * written into and each encoding of that line to UTF-8 then take twice the memory and more time. With
 * `…` a step's event log was UTF-16 text throughout; with `...` the loop's CPU a step measured ~6% lower.
 * Labels shown to a person (`fitText`, `oneLine`) keep `…`.
 */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** `text` in at most `max` characters, the `…` that marks a cut counted among them: for titles and one-line labels. */
export function fitText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `text` with its white space folded to single spaces, fitted to `max` characters as `fitText` does: for one-line summaries. */
export function oneLine(text: string, max: number): string {
  return fitText(text.replace(/\s+/g, " ").trim(), max);
}

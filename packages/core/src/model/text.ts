/**
 * The first `max` characters of `text`, followed by `…` when anything was cut: for descriptions,
 * step results and previews that must stay short in a stored entry or a prompt.
 */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** `text` in at most `max` characters, the `…` that marks a cut counted among them: for titles and one-line labels. */
export function fitText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `text` with its white space folded to single spaces, fitted to `max` characters as `fitText` does: for one-line summaries. */
export function oneLine(text: string, max: number): string {
  return fitText(text.replace(/\s+/g, " ").trim(), max);
}

/** `value` as one shell word, quoted only when it needs to be, for commands the CLI suggests. */
export function shellWord(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

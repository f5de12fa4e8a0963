/** Terminal styling, chosen once per command from where stdout goes; plain text otherwise. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
}

export const PLAIN: Style = { bold: (t) => t, dim: (t) => t };

export const ANSI: Style = {
  bold: (t) => `\u001b[1m${t}\u001b[22m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
};

/** ANSI on a terminal unless NO_COLOR is set; FORCE_COLOR (not "0") turns it on anywhere. */
export function pickStyle(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): Style {
  if (env.NO_COLOR) return PLAIN;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return ANSI;
  return isTTY ? ANSI : PLAIN;
}

/** Terminal styling, chosen once per command from where stdout goes; plain text otherwise. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

const same = (t: string) => t;

export const PLAIN: Style = { bold: same, dim: same, green: same, red: same, yellow: same };

export const ANSI: Style = {
  bold: (t) => `\u001b[1m${t}\u001b[22m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
  green: (t) => `\u001b[32m${t}\u001b[39m`,
  red: (t) => `\u001b[31m${t}\u001b[39m`,
  yellow: (t) => `\u001b[33m${t}\u001b[39m`,
};

/** ANSI on a terminal unless NO_COLOR is set; FORCE_COLOR (not "0") turns it on anywhere. */
export function pickStyle(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): Style {
  if (env.NO_COLOR) return PLAIN;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return ANSI;
  return isTTY ? ANSI : PLAIN;
}

import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import xterm from "@xterm/headless";
import pty from "node-pty";
import { ARBOR_BIN, REPO_ROOT } from "./cli.js";

/** Screens land here (gitignored) as text and PNG, for a person to look at after a run. */
export const TERMINAL_ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/cli/", import.meta.url));

export interface TerminalOptions {
  home: string;
  env?: Record<string, string>;
  cwd?: string;
  cols?: number;
  rows?: number;
}

/** `arbor` in a pseudo-terminal, its output played into a headless xterm: what a person would see. */
export interface ArborTerminal {
  /** Types into the terminal: text, `\r` for Enter, `\u0003` for Ctrl-C, `\u001b` for Esc. */
  type(keys: string): void;
  /** The visible screen, one string a row, trailing blanks cut. */
  screen(): string;
  /** Everything written so far, scrollback and screen. */
  all(): string;
  /** Resolves once everything written so far matches `pattern`; rejects, with the screen, if the process exits or `ms` pass first. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  /** Like `waitFor`, on the visible screen only (what is shown now, not what scrolled by). */
  waitForScreen(pattern: RegExp, ms?: number): Promise<void>;
  /** Saves the screen as `<name>.txt` and `<name>.html` under the artifacts folder; gives the HTML. */
  save(name: string): string;
  readonly exit: Promise<number>;
  kill(): void;
}

const PALETTE = [
  "#000000",
  "#cd3131",
  "#0dbc79",
  "#e5e510",
  "#2472c8",
  "#bc3fbc",
  "#11a8cd",
  "#e5e5e5",
  "#666666",
  "#f14c4c",
  "#23d18b",
  "#f5f543",
  "#3b8eea",
  "#d670d6",
  "#29b8db",
  "#ffffff",
];

function color256(n: number): string {
  if (n < 16) return PALETTE[n] ?? "#ffffff";
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const c = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${c(Math.floor(i / 36))},${c(Math.floor(i / 6) % 6)},${c(i % 6)})`;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function startTerminal(args: string[], opts: TerminalOptions): ArborTerminal {
  const cols = opts.cols ?? 100;
  const rows = opts.rows ?? 32;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ARBOR_") && k !== "NO_COLOR" && k !== "FORCE_COLOR" && !k.startsWith("CI")) env[k] = v;
  }
  Object.assign(env, { ARBOR_HOME: opts.home, TERM: "xterm-256color" }, opts.env);
  const term = new xterm.Terminal({ cols, rows, scrollback: 2000, allowProposedApi: true });
  const child = pty.spawn(process.execPath, [ARBOR_BIN, ...args], {
    cols,
    rows,
    cwd: opts.cwd ?? REPO_ROOT,
    env,
    name: "xterm-256color",
  });
  const watchers = new Set<() => void>();
  let exited: number | undefined;
  child.onData((data) =>
    term.write(data, () => {
      for (const w of [...watchers]) w();
    }),
  );
  const exit = new Promise<number>((resolve) =>
    child.onExit(({ exitCode }) => {
      // Let xterm take in the last output before anyone reads the screen.
      term.write("", () => {
        exited = exitCode;
        for (const w of [...watchers]) w();
        resolve(exitCode);
      });
    }),
  );
  const lines = (from: number, to: number) => {
    const b = term.buffer.active;
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(b.getLine(i)?.translateToString(true) ?? "");
    return out.join("\n").replace(/\s+$/, "");
  };
  const screen = () => lines(term.buffer.active.viewportY, term.buffer.active.viewportY + rows);
  const all = () => lines(0, term.buffer.active.length);

  const html = () => {
    const b = term.buffer.active;
    const cell = b.getNullCell();
    const out: string[] = [];
    for (let y = b.viewportY; y < b.viewportY + rows; y++) {
      const line = b.getLine(y);
      let row = "";
      for (let x = 0; x < cols && line; x++) {
        line.getCell(x, cell);
        if (cell.getWidth() === 0) continue;
        let fg = cell.isFgRGB()
          ? `#${cell.getFgColor().toString(16).padStart(6, "0")}`
          : cell.isFgPalette()
            ? color256(cell.getFgColor())
            : "#e5e5e5";
        let bg = cell.isBgRGB()
          ? `#${cell.getBgColor().toString(16).padStart(6, "0")}`
          : cell.isBgPalette()
            ? color256(cell.getBgColor())
            : "transparent";
        if (cell.isInverse()) [fg, bg] = [bg === "transparent" ? "#1e1e1e" : bg, fg];
        const css = [`color:${fg}`, `background:${bg}`];
        if (cell.isBold()) css.push("font-weight:bold");
        if (cell.isItalic()) css.push("font-style:italic");
        if (cell.isDim()) css.push("opacity:0.6");
        if (cell.isUnderline()) css.push("text-decoration:underline");
        row += `<span style="${css.join(";")}">${escapeHtml(cell.getChars() || " ")}</span>`;
      }
      out.push(`<div class="row">${row}</div>`);
    }
    return `<!doctype html><meta charset="utf-8"><style>body{margin:0;background:#1e1e1e}pre{margin:0;padding:12px;font:14px/18px "DejaVu Sans Mono",monospace;color:#e5e5e5}.row{height:18px;white-space:pre}</style><pre>${out.join("")}</pre>`;
  };

  const waitOn = (read: () => string, pattern: RegExp, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`the terminal never showed ${pattern}; the screen:\n${screen()}`));
      }, ms);
      const check = () => {
        if (pattern.test(read())) {
          clearTimeout(timer);
          watchers.delete(check);
          resolve();
        } else if (exited !== undefined) {
          clearTimeout(timer);
          watchers.delete(check);
          reject(new Error(`arbor exited (${exited}) before showing ${pattern}; the screen:\n${screen()}`));
        }
      };
      watchers.add(check);
      check();
    });

  return {
    type: (keys) => child.write(keys),
    screen,
    all,
    waitFor: (pattern, ms) => waitOn(all, pattern, ms),
    waitForScreen: (pattern, ms) => waitOn(screen, pattern, ms),
    save: (name) => {
      mkdirSync(TERMINAL_ARTIFACTS, { recursive: true });
      writeFileSync(`${TERMINAL_ARTIFACTS}${name}.txt`, `${screen()}\n`);
      const page = html();
      writeFileSync(`${TERMINAL_ARTIFACTS}${name}.html`, page);
      return page;
    },
    exit,
    kill: () => {
      if (exited === undefined) child.kill("SIGKILL");
    },
  };
}

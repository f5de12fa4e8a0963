/**
 * Markdown as a terminal shows it: headings bold, emphasis, code in colour, lists with bullets,
 * quotes with a bar, fenced code blocks indented. It reads line by line, so a half-streamed answer
 * renders as well as a whole one (an open code fence runs to the end of what has arrived).
 */

/** SGR styling; plain when the terminal asked for no colour (NO_COLOR). */
export interface MarkdownStyle {
  bold(text: string): string;
  italic(text: string): string;
  code(text: string): string;
  dim(text: string): string;
  underline(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export const ANSI_MARKDOWN: MarkdownStyle = {
  bold: sgr(1, 22),
  italic: sgr(3, 23),
  code: sgr(36, 39),
  dim: sgr(2, 22),
  underline: sgr(4, 24),
};

const same = (text: string) => text;
export const PLAIN_MARKDOWN: MarkdownStyle = { bold: same, italic: same, code: same, dim: same, underline: same };

/** `**bold**`, `*italic*`/`_italic_`, `` `code` `` and `[text](url)` within one line. */
export function renderInline(line: string, style: MarkdownStyle): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const rest = line.slice(i);
    const code = /^`([^`]+)`/.exec(rest);
    if (code?.[1] !== undefined) {
      out += style.code(code[1]);
      i += code[0].length;
      continue;
    }
    const bold = /^(\*\*|__)(?=\S)(.+?)(?<=\S)\1/.exec(rest);
    if (bold?.[2] !== undefined) {
      out += style.bold(renderInline(bold[2], style));
      i += bold[0].length;
      continue;
    }
    const italic = /^(\*|_)(?=\S)(.+?)(?<=\S)\1(?!\w)/.exec(rest);
    if (italic?.[2] !== undefined && (i === 0 || !/\w/.test(line[i - 1] ?? ""))) {
      out += style.italic(renderInline(italic[2], style));
      i += italic[0].length;
      continue;
    }
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest);
    if (link?.[1] !== undefined && link[2] !== undefined) {
      out += link[1] === link[2] ? style.underline(link[2]) : `${link[1]} ${style.dim(`(${style.underline(link[2])})`)}`;
      i += link[0].length;
      continue;
    }
    out += line[i];
    i++;
  }
  return out;
}

/** The whole text, rendered; `width` sizes the rule of a `---` line. */
export function renderMarkdown(text: string, style: MarkdownStyle, width = 80): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const fenceMark = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/.exec(line);
    if (fence !== undefined) {
      if (fenceMark?.[1]?.startsWith(fence) && fenceMark[2] === "") {
        fence = undefined;
        continue;
      }
      out.push(`  ${style.code(line)}`);
      continue;
    }
    if (fenceMark?.[1] !== undefined) {
      fence = fenceMark[1];
      if (fenceMark[2]) out.push(style.dim(`  ${fenceMark[2]}`));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading?.[1] !== undefined && heading[2] !== undefined) {
      const body = renderInline(heading[2], style);
      out.push(heading[1].length === 1 ? style.bold(style.underline(body)) : style.bold(body));
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(style.dim("─".repeat(Math.max(3, Math.min(width, 80)))));
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote?.[1] !== undefined) {
      out.push(`${style.dim("│")} ${style.italic(renderInline(quote[1], style))}`);
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet?.[1] !== undefined && bullet[2] !== undefined) {
      const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[2]);
      const mark = task ? (task[1] === " " ? "☐" : "☑") : "•";
      out.push(`${bullet[1]}${mark} ${renderInline(task?.[2] ?? bullet[2], style)}`);
      continue;
    }
    const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
    if (numbered?.[1] !== undefined && numbered[3] !== undefined) {
      out.push(`${numbered[1]}${numbered[2]}. ${renderInline(numbered[3], style)}`);
      continue;
    }
    out.push(renderInline(line, style));
  }
  return out.join("\n");
}

import { createRequire } from "node:module";
import type { Language, Node, Parser } from "web-tree-sitter";

/**
 * What a bash command line does, as far as permission rules care: every simple command in it
 * (inside lists, pipelines, subshells, substitutions and function bodies alike) and every file
 * it writes through a redirection. A command line the grammar cannot parse is `unparsed`: nothing
 * about it can be vouched for.
 */
export type ShellAnalysis =
  | { kind: "parsed"; commands: ShellCommand[]; writes: ShellWrite[]; pipelines: string[][] }
  | { kind: "unparsed"; commands: []; writes: []; pipelines: [] };

export interface ShellCommand {
  /** The command's whole text, assignments and arguments included: what rules are matched against. */
  text: string;
  /** The program and its arguments, each unquoted when it is a plain literal, else as written. */
  argv: string[];
}

/** A redirection that writes: its target as written, and whether that is a literal path. */
export interface ShellWrite {
  target: string;
  literal: boolean;
}

export interface ShellParser {
  analyze(command: string): Promise<ShellAnalysis>;
}

const COMMAND_TYPES = new Set(["command", "declaration_command", "unset_command", "test_command"]);
const WRITE_OPERATORS = new Set([">", ">>", "&>", "&>>", ">|", ">&", "&>|"]);
/** Characters that make a word expand (variables, globs, braces, tildes are resolved separately). */
const EXPANDING = /[$\u0060*?[\]{}]/; // \u0060: the backquote of old-style command substitution

/**
 * The wasm runtime of web-tree-sitter is one per process: initialising it twice invalidates the
 * parsers made before, so the runtime and the grammar are loaded once and shared. Each parser
 * made from them belongs to one `ShellParser`. The module itself is imported here, on the first
 * command analysed, so that importing the runtime (or a CLI command that runs no bash) does not load it.
 */
let grammar: Promise<{ language: Language; Parser: typeof Parser }> | undefined;

function loadGrammar(): Promise<{ language: Language; Parser: typeof Parser }> {
  grammar ??= (async () => {
    const treeSitter = await import("web-tree-sitter");
    await treeSitter.Parser.init();
    const require = createRequire(import.meta.url);
    const language = await treeSitter.Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    return { language, Parser: treeSitter.Parser };
  })();
  return grammar;
}

/** A bash parser (tree-sitter's bash grammar); the grammar loads on the first use. */
export function createShellParser(): ShellParser {
  let parser: Promise<Parser> | undefined;
  return {
    async analyze(command) {
      parser ??= loadGrammar().then((g) => new g.Parser().setLanguage(g.language));
      const tree = (await parser).parse(command);
      if (!tree) return UNPARSED;
      try {
        return analyzeTree(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}

const UNPARSED: ShellAnalysis = Object.freeze({ kind: "unparsed", commands: [], writes: [], pipelines: [] }) as ShellAnalysis;

function analyzeTree(root: Node): ShellAnalysis {
  if (root.hasError) return UNPARSED;
  const commands: ShellCommand[] = [];
  const writes: ShellWrite[] = [];
  const pipelines: string[][] = [];
  // An explicit stack: a hostile command nesting thousands of subshells must not exhaust the JS stack.
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.isError || node.isMissing) return UNPARSED;
    if (COMMAND_TYPES.has(node.type)) commands.push(commandOf(node));
    else if (node.type === "file_redirect") {
      const write = writeOf(node);
      if (write) writes.push(write);
    } else if (node.type === "pipeline") pipelines.push(stagesOf(node));
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i);
      if (child) stack.push(child);
    }
  }
  return { kind: "parsed", commands, writes, pipelines };
}

/** The text of each stage of a pipeline, in order ("" for a stage that is not a simple command). */
function stagesOf(node: Node): string[] {
  return node.namedChildren.map((stage) => {
    const command = stage?.type === "redirected_statement" ? stage.childForFieldName("body") : stage;
    return command?.type === "command" ? command.text : "";
  });
}

function commandOf(node: Node): ShellCommand {
  // Words after a redirection (`rm > log -rf x`) belong to the command but sit in the statement
  // around it, so a redirected command is matched with its redirections.
  const parent = node.parent;
  const whole = parent?.type === "redirected_statement" && parent.childForFieldName("body")?.equals(node) ? parent : node;
  const text = whole.text.trim();
  const words = [node.childForFieldName("name"), ...node.childrenForFieldName("argument")];
  const argv = words.flatMap((word) => (word ? [literalText(word) ?? word.text] : []));
  return { text, argv };
}

function writeOf(node: Node): ShellWrite | undefined {
  const operator = node.children.find((child) => child && !child.isNamed)?.type;
  if (!operator || !WRITE_OPERATORS.has(operator)) return undefined;
  const destination = node.childForFieldName("destination");
  if (!destination) return undefined;
  // `2>&1`, `>&-`: a file descriptor copied or closed, no file.
  if (operator === ">&" && (destination.type === "number" || destination.text === "-")) return undefined;
  const literal = literalText(destination);
  return literal === undefined ? { target: destination.text, literal: false } : { target: literal, literal: true };
}

/** The word's value when it has no expansion in it: a bare word, '…', or "…" holding only text. */
function literalText(node: Node): string | undefined {
  switch (node.type) {
    case "word": {
      const tilde = node.text.startsWith("~") && node.text !== "~" && !node.text.startsWith("~/"); // ~user/…
      return tilde || EXPANDING.test(node.text) || node.text.includes("\\") ? undefined : node.text;
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
      return node.namedChildren.every((child) => child?.type === "string_content") && !node.text.includes("\\")
        ? node.text.slice(1, -1)
        : undefined;
    default:
      return undefined;
  }
}

import { Box, Static, Text, useAnimation, useApp, useInput } from "ink";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { ChatController, ChatState } from "./controller.js";
import { completeFile, type Draft, deleteBack, EMPTY_DRAFT, enter, insert, moveCursor, walk } from "./editor.js";
import { type MarkdownStyle, renderMarkdown } from "./markdown.js";

export interface ChatAppProps {
  controller: ChatController;
  /** Earlier prompts, oldest first; the app adds what is sent. */
  history: string[];
  /** Called with each prompt sent, to keep it for later chats. */
  onSent(prompt: string): void;
  /** Where `@path` completes from: the workspace. */
  cwd: string;
  markdown: MarkdownStyle;
  columns: number;
}

/** The text being typed, the cursor drawn as an inverse cell. */
function DraftText({ draft }: { draft: Draft }) {
  const before = draft.text.slice(0, draft.cursor);
  const at = draft.text.slice(draft.cursor, draft.cursor + 1);
  const after = draft.text.slice(draft.cursor + 1);
  return (
    <Text>
      {before}
      <Text inverse>{at === "" || at === "\n" ? " " : at}</Text>
      {at === "\n" ? "\n" : ""}
      {after}
    </Text>
  );
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The turn in progress: the answer streaming in, and each running tool with a spinner and its latest progress. */
function Live({ state, markdown, columns }: { state: ChatState; markdown: MarkdownStyle; columns: number }) {
  const { frame } = useAnimation({ interval: 200, isActive: state.busy });
  const spin = SPINNER[frame % SPINNER.length];
  return (
    <Box flexDirection="column">
      {state.streaming !== "" && <Text>{renderMarkdown(state.streaming, markdown, columns)}</Text>}
      {state.tools.map((t) => (
        <Text key={t.callId}>
          <Text color="cyan">{spin}</Text>
          <Text dimColor>{` ${t.tool}${t.subject ? ` ${t.subject}` : ""}${t.note ? `  ${t.note}` : ""}`}</Text>
        </Text>
      ))}
    </Box>
  );
}

/** The whole chat screen: the transcript above (written once, scrolling with the terminal), the live turn, the question or the input, a status line. */
export function ChatApp(props: ChatAppProps) {
  const { controller } = props;
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const { exit } = useApp();
  // Keys can arrive faster than React renders: the handler reads and writes the draft through the ref.
  const draftRef = useRef<Draft>(EMPTY_DRAFT);
  const [draft, setDraftState] = useState<Draft>(EMPTY_DRAFT);
  const [choices, setChoices] = useState<string[]>([]);
  const setDraft = (d: Draft) => {
    draftRef.current = d;
    setDraftState(d);
  };

  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);

  /** Enter: sends the draft (kept in the history), or answers the question waiting for a line. */
  const submitDraft = (d: Draft, question: ChatState["question"]) => {
    const { draft: next, send } = enter(d);
    setDraft(next);
    if (send === undefined) return;
    if (question === undefined && send.trim() !== "" && props.history.at(-1) !== send) {
      props.history.push(send);
      props.onSent(send);
    }
    if (question !== undefined || send.trim() !== "") void controller.submit(send);
  };

  useInput((input, key) => {
    const d = draftRef.current;
    if (key.ctrl && input === "c") {
      controller.interrupt();
      return;
    }
    if (key.ctrl && input === "d") {
      if (d.text === "") controller.quit();
      return;
    }
    const question = state.question;
    if (question !== undefined && question.keys.length > 0) {
      // Keys typed quickly arrive together: each is tried, and the first the question offers answers it.
      for (const ch of input) controller.answerKey(ch);
      return;
    }
    controller.clearHint();
    if (key.escape) {
      setChoices([]);
      if (state.busy) {
        void controller.steer(d.text).then((sent) => {
          if (sent) setDraft(EMPTY_DRAFT);
        });
      }
      return;
    }
    if (key.return) {
      setChoices([]);
      if (key.meta) return setDraft(insert(d, "\n"));
      submitDraft(d, question);
      return;
    }
    if (key.tab) {
      const done = completeFile(d, props.cwd);
      setDraft(done.draft);
      setChoices(done.choices);
      return;
    }
    if (key.upArrow || key.downArrow) return setDraft(walk(d, props.history, key.upArrow ? "up" : "down"));
    if (key.leftArrow) return setDraft(moveCursor(d, "left"));
    if (key.rightArrow) return setDraft(moveCursor(d, "right"));
    if (key.home || (key.ctrl && input === "a")) return setDraft(moveCursor(d, "home"));
    if (key.end || (key.ctrl && input === "e")) return setDraft(moveCursor(d, "end"));
    if (key.backspace || key.delete) return setDraft(deleteBack(d));
    if (key.ctrl && input === "u") return setDraft(EMPTY_DRAFT);
    if (key.ctrl || input === "") return;
    setChoices([]);
    // Text and Enter typed faster than the terminal reads arrive as one chunk: the Enter still sends it
    // (a pasted block, with its newlines inside, is only inserted).
    if (/^[^\r\n]+\r$/.test(input)) {
      draftRef.current = insert(d, input.slice(0, -1));
      submitDraft(draftRef.current, question);
      return;
    }
    setDraft(insert(d, input));
  });

  const question = state.question;
  return (
    <Box flexDirection="column">
      <Static items={[...state.items]}>{(item) => <Text key={item.id}>{item.text}</Text>}</Static>
      <Live state={state} markdown={props.markdown} columns={props.columns} />
      {question !== undefined && (
        <Box borderStyle="round" borderColor="yellow" paddingX={1}>
          <Text color="yellow">{question.text}</Text>
        </Box>
      )}
      {(question === undefined || question.keys.length === 0) && (
        <Box borderStyle="round" borderColor={state.busy ? "gray" : "cyan"} paddingX={1}>
          <Text color="cyan">{"› "}</Text>
          <DraftText draft={draft} />
        </Box>
      )}
      {choices.length > 0 && <Text dimColor>{choices.join("  ")}</Text>}
      <Text dimColor>
        {question !== undefined && question.keys.length > 0
          ? `press ${question.keys.join(", ")} to answer · Ctrl-C stops · `
          : state.busy
            ? "working… Esc steers · Ctrl-C stops · "
            : ""}
        {state.queued.length > 0 ? `${state.queued.length} queued · ` : ""}
        {state.hint ?? state.status}
      </Text>
    </Box>
  );
}

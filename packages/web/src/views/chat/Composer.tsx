import { type FormEvent, type KeyboardEvent, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { parseMcpServerNames, parseServerInfo, type ServerInfo } from "../../api/wire.js";
import { type McpMention, mcpMentionsOf } from "../../lib/mcp-mentions.js";
import { TextField } from "../common/TextField.js";
import { DebugLevelPicker } from "./DebugLevelPicker.js";
import { McpPicker } from "./McpPicker.js";
import { type ChosenPrompt, McpPromptFields, promptArguments } from "./McpPromptFields.js";

export interface ComposerValue {
  message: string;
  model: string;
  agent: string;
  /** The message's `@server:uri` mentions of configured MCP servers, for the server to attach. */
  attachments: McpMention[];
  /** An MCP server's prompt to open the message with (`mcp_prompt`), chosen in the MCP picker. */
  mcpPrompt?: { server: string; name: string; arguments: Record<string, string> };
}

interface Props {
  running: boolean;
  /** The model this session last ran with, which a run that names none keeps. */
  sessionModel?: string | undefined;
  /** While a run streams, a message is handed to it (steering) instead of waiting for it to end. */
  steerable?: boolean;
  onSend: (value: ComposerValue) => void;
  onAbort?: (() => void) | undefined;
  /** Set when the user picked an entry in the tree to continue from. */
  continueFrom?: { entryId: string; description: string } | undefined;
  onCancelContinue?: (() => void) | undefined;
}

/** The server's default model and startable agents, so the fields show what a run will really use. */
function useServerInfo(): ServerInfo | undefined {
  const [info, setInfo] = useState<ServerInfo | undefined>();
  useEffect(() => {
    let live = true;
    api("/api/info", parseServerInfo).then(
      (i) => live && setInfo(i),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return info;
}

/**
 * The configured MCP servers' names, asked for the first time a message holds an `@` (asking starts
 * the servers, which a chat that mentions none should not pay for).
 */
function useMcpServerNames(wanted: boolean): string[] {
  const [names, setNames] = useState<string[] | undefined>();
  useEffect(() => {
    if (!wanted || names !== undefined) return;
    let live = true;
    api("/api/mcp/servers", parseMcpServerNames).then(
      (n) => live && setNames(n),
      () => live && setNames([]),
    );
    return () => {
      live = false;
    };
  }, [wanted, names]);
  return names ?? [];
}

/**
 * The model a run sent with an empty Model field will use, in the server's order: the session's last
 * model (when it names a provider the server knows), the agent's own, the server's default.
 */
function shownModel(
  info: ServerInfo | undefined,
  sessionModel: string | undefined,
  agentName: string,
): { model: string | undefined; why: string } {
  const provider = sessionModel?.slice(0, sessionModel.indexOf("/"));
  if (sessionModel && info && (info.providers === undefined || info.providers.includes(provider ?? ""))) {
    return { model: sessionModel, why: "this session's model" };
  }
  const agent = info?.agents.find((a) => a.name === (agentName || info.default_agent));
  if (agent?.model) return { model: agent.model, why: `the ${agent.name} agent's model` };
  return { model: info?.default_model ?? undefined, why: "the server's default" };
}

/** The message box with the model and agent pickers; Enter sends, Shift+Enter starts a new line. */
export function Composer({ running, sessionModel, steerable = false, onSend, onAbort, continueFrom, onCancelContinue }: Props) {
  const blocked = running && !steerable;
  const [message, setMessage] = useState("");
  const [model, setModel] = useState("");
  const [agent, setAgent] = useState("");
  const [prompt, setPrompt] = useState<ChosenPrompt | undefined>();
  const [missing, setMissing] = useState<string[]>([]);
  const agentsId = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  // "Continue from here" brings the user here to write the new message: the box takes the focus, so
  // a keyboard user does not start again from the top of the page.
  const continueEntry = continueFrom?.entryId;
  useEffect(() => {
    if (continueEntry) box.current?.focus();
  }, [continueEntry]);
  // The box is as tall as its text (CSS sets its least and greatest height), so a long message can be read whole.
  // biome-ignore lint/correctness/useExhaustiveDependencies: measured again whenever the text changes.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${el.scrollHeight + el.offsetHeight - el.clientHeight}px`;
  }, [message]);
  const info = useServerInfo();
  const mcpServers = useMcpServerNames(message.includes("@"));
  const attachments = mcpMentionsOf(message, mcpServers);
  const agentNames = info?.agents.map((a) => a.name) ?? [];
  const modelShown = shownModel(info, sessionModel, agent.trim());
  const unknownAgent = agent.trim() !== "" && info !== undefined && !agentNames.includes(agent.trim());
  // A steer is text only: a prompt waits for the run to end.
  const withPrompt = prompt !== undefined && !(running && steerable);
  const empty = !message.trim() && !withPrompt;
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (empty || blocked || unknownAgent) return;
    const value: ComposerValue = { message, model: model.trim(), agent: agent.trim(), attachments };
    if (withPrompt) {
      const args = promptArguments(prompt);
      if ("missing" in args) {
        setMissing(args.missing);
        return;
      }
      value.mcpPrompt = { server: prompt.server, name: prompt.prompt.name, arguments: args.arguments };
    }
    onSend(value);
    setMessage("");
    if (withPrompt) setPrompt(undefined);
    setMissing([]);
  };
  // A picked resource is mentioned where the message ends, and the box takes the focus back.
  const mention = (server: string, uri: string) => {
    setMessage((text) => `${text}${text === "" || /\s$/.test(text) ? "" : " "}@${server}:${uri} `);
    box.current?.focus();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends as in a chat; Shift+Enter is a new line; a composing input method keeps its Enter.
    if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    submit();
  };
  return (
    // noValidate: a prompt's required argument left empty is said by the composer, the field marked, not by a browser bubble.
    <form className="composer" onSubmit={submit} aria-label="Composer" noValidate>
      {continueFrom && (
        <p className="continue-from" role="status">
          Continuing from <code>{continueFrom.description}</code>
          <button type="button" className="link" onClick={onCancelContinue}>
            cancel
          </button>
        </p>
      )}
      {prompt && (
        <McpPromptFields
          chosen={prompt}
          missing={missing}
          onChange={(next) => {
            setPrompt(next);
            // A field filled in since the last send is no longer said to be missing.
            setMissing((names) => names.filter((name) => !next.values[name]?.trim()));
          }}
          onRemove={() => {
            setPrompt(undefined);
            setMissing([]);
            box.current?.focus();
          }}
        />
      )}
      {missing.length > 0 && (
        <p className="error" role="alert">
          Fill in {missing.join(", ")} for the prompt.
        </p>
      )}
      <label className="field grow">
        <span>Message</span>
        <textarea
          ref={box}
          value={message}
          rows={1}
          placeholder={
            running && steerable
              ? "Tell the running agent… (Enter to send, Shift+Enter for a new line)"
              : "Ask the agent… (Enter to send, Shift+Enter for a new line)"
          }
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </label>
      {attachments.length > 0 && (
        <p className="composer-attachments" role="status">
          Attaching {attachments.map((a) => `${a.server}:${a.uri}`).join(", ")}
          {running && steerable ? " (not sent with a steer: send it after the run)" : ""}
        </p>
      )}
      {unknownAgent && (
        <p className="error" role="alert">
          The server has no agent “{agent.trim()}”. Agents you can run: {agentNames.join(", ")}.
        </p>
      )}
      <div className="composer-bar">
        <TextField
          label="Model"
          value={model}
          placeholder={modelShown.model ?? (info === undefined ? "server default" : "none configured: type provider/model")}
          title={modelShown.model ? `Empty: ${modelShown.why}, ${modelShown.model}` : undefined}
          onValue={setModel}
        />
        <TextField
          label="Agent"
          value={agent}
          list={agentsId}
          placeholder={info?.default_agent ?? "build"}
          aria-invalid={unknownAgent || undefined}
          onValue={setAgent}
        >
          <datalist id={agentsId}>
            {info?.agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.description}
              </option>
            ))}
          </datalist>
        </TextField>
        <DebugLevelPicker />
        <McpPicker
          disabled={running}
          onResource={mention}
          onPrompt={(server, chosen) => {
            setPrompt({ server, prompt: chosen, values: {} });
            setMissing([]);
          }}
        />
        <div className="button-row">
          {running && onAbort && (
            <button type="button" className="danger" onClick={onAbort}>
              Abort
            </button>
          )}
          <button type="submit" className="primary" disabled={blocked || empty || unknownAgent}>
            {running && steerable ? "Steer" : "Send"}
          </button>
        </div>
      </div>
    </form>
  );
}

import { useId } from "react";
import type { McpPromptItem } from "../../api/mcp.js";

/** The MCP prompt a message is sent with: its server, and the arguments typed so far. */
export interface ChosenPrompt {
  server: string;
  prompt: McpPromptItem;
  values: Record<string, string>;
}

/** The prompt's arguments as `mcp_prompt` sends them (empty ones left out), or the required ones left empty. */
export function promptArguments(chosen: ChosenPrompt): { arguments: Record<string, string> } | { missing: string[] } {
  const args: Record<string, string> = {};
  const missing: string[] = [];
  for (const a of chosen.prompt.arguments) {
    const value = chosen.values[a.name]?.trim() ?? "";
    if (value !== "") args[a.name] = value;
    else if (a.required) missing.push(a.name);
  }
  return missing.length > 0 ? { missing } : { arguments: args };
}

interface Props {
  chosen: ChosenPrompt;
  /** Required arguments the last send found empty, marked invalid. */
  missing: readonly string[];
  onChange: (chosen: ChosenPrompt) => void;
  onRemove: () => void;
}

/** A small form of the chosen prompt's arguments, the required ones marked; the server fills the prompt in when sent. */
export function McpPromptFields({ chosen, missing, onChange, onRemove }: Props) {
  const id = useId();
  const { server, prompt } = chosen;
  return (
    <fieldset className="mcp-prompt">
      <legend>
        Prompt <code>{`${server}:${prompt.name}`}</code>
      </legend>
      {prompt.description && <p className="muted">{prompt.description}</p>}
      {prompt.arguments.length === 0 && <p className="muted">It takes no arguments.</p>}
      {prompt.arguments.map((a, i) => (
        <label className="field" key={a.name}>
          <span>
            {a.name}
            {a.required ? " (required)" : ""}
          </span>
          <input
            value={chosen.values[a.name] ?? ""}
            required={a.required}
            aria-invalid={missing.includes(a.name) || undefined}
            aria-describedby={a.description ? `${id}-${i}` : undefined}
            onChange={(e) => onChange({ ...chosen, values: { ...chosen.values, [a.name]: e.target.value } })}
          />
          {a.description && (
            <small id={`${id}-${i}`} className="muted">
              {a.description}
            </small>
          )}
        </label>
      ))}
      <button type="button" className="link" onClick={onRemove}>
        Remove the prompt
      </button>
    </fieldset>
  );
}

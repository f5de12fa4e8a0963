import { useId, useState } from "react";
import type { ElicitationField, PendingElicitationAsk } from "../../api/elicitations.js";
import { useAction } from "../../lib/use-action.js";
import { ErrorAlert } from "../common/ErrorAlert.js";

/** What an input holds: text (numbers too, as typed), a checkbox, or the choices ticked. */
type Value = string | boolean | string[];

interface Props {
  ask: PendingElicitationAsk;
  /** Accept (with the form's content; a URL one without) or decline; a rejection is shown on the card. */
  onAnswer: (accept: boolean, content?: Record<string, unknown>) => Promise<void>;
}

/** A field's choices: an enum's values, or titled consts (`oneOf`, an array's `items.anyOf`). */
function choicesOf(field: ElicitationField): Array<{ value: string; label: string }> | undefined {
  const titled = (list: Array<{ const?: unknown; title?: string }> | undefined) =>
    list?.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
  const plain = (list: unknown[] | undefined) => list?.map((v) => ({ value: String(v), label: String(v) }));
  if (field.type === "array") return plain(field.items?.enum) ?? titled(field.items?.anyOf);
  return plain(field.enum) ?? titled(field.oneOf);
}

function initialValue(field: ElicitationField): Value {
  if (field.type === "boolean") return field.default === true;
  if (field.type === "array") return Array.isArray(field.default) ? field.default.map(String) : [];
  return field.default === undefined ? "" : String(field.default);
}

const INPUT_TYPES: Readonly<Record<string, string>> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/**
 * The content the form sends: every field given, typed per its schema (a checkbox is always a
 * value; empty text and untouched choices are left out, so the server's defaults apply); or the
 * names of required fields left empty.
 */
export function formContent(
  fields: Array<[string, ElicitationField]>,
  values: Record<string, Value>,
  required: string[],
): { content: Record<string, unknown> } | { missing: string[] } {
  const content: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, field] of fields) {
    const value = values[name];
    if (typeof value === "boolean") content[name] = value;
    else if (Array.isArray(value)) {
      if (value.length > 0) content[name] = value;
    } else if (value !== undefined && value.trim() !== "") {
      content[name] = field.type === "number" || field.type === "integer" ? Number(value) : value;
    }
    if (!(name in content) && required.includes(name) && field.default === undefined) missing.push(field.title ?? name);
  }
  return missing.length > 0 ? { missing } : { content };
}

function FieldInput({
  name,
  field,
  value,
  required,
  disabled,
  onChange,
}: {
  name: string;
  field: ElicitationField;
  value: Value;
  required: boolean;
  disabled: boolean;
  onChange: (v: Value) => void;
}) {
  const id = useId();
  const label = `${field.title ?? name}${required ? " (required)" : ""}`;
  const hint = field.description ? <span className="muted">{field.description}</span> : null;
  const choices = choicesOf(field);
  if (field.type === "boolean") {
    return (
      <label className="elicitation-check">
        <input type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />{" "}
        {label} {hint}
      </label>
    );
  }
  if (choices && field.type === "array") {
    const ticked = Array.isArray(value) ? value : [];
    return (
      <fieldset className="question-options">
        <legend>{label}</legend>
        {hint}
        {choices.map((c) => (
          <label key={c.value}>
            <input
              type="checkbox"
              checked={ticked.includes(c.value)}
              disabled={disabled}
              onChange={(e) => onChange(e.target.checked ? [...ticked, c.value] : ticked.filter((v) => v !== c.value))}
            />{" "}
            {c.label}
          </label>
        ))}
      </fieldset>
    );
  }
  return (
    <div className="question-own">
      <label htmlFor={id}>{label}</label>
      {hint}
      {choices ? (
        <select id={id} value={String(value)} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
          {(!required || field.default === undefined) && <option value="">—</option>}
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={field.type === "number" || field.type === "integer" ? "number" : (INPUT_TYPES[field.format ?? ""] ?? "text")}
          step={field.type === "integer" ? 1 : field.type === "number" ? "any" : undefined}
          min={field.minimum}
          max={field.maximum}
          value={String(value)}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </div>
  );
}

/**
 * An MCP server's elicitation during a tool call, answered in place: a form rendered from the
 * server's schema (text, numbers, a checkbox, choices; defaults filled in), or a page to open; accept
 * or decline. The tool call waits until one is sent, from here or any other door.
 */
export function ElicitationCard({ ask, onAnswer }: Props) {
  if (ask.mode === "login") return <McpLoginCard ask={ask} onAnswer={onAnswer} />;
  return <ElicitationForm ask={ask} onAnswer={onAnswer} />;
}

/**
 * A login an MCP server wants before the run can use it: the authorization server's page, opened in
 * a new tab; its redirect back to the server finishes the login and the card goes away. Cancel
 * declines it: the run goes on without the server.
 */
function McpLoginCard({ ask, onAnswer }: Props) {
  const { busy, error, run } = useAction();
  const cancel = () => run(() => onAnswer(false));
  return (
    <section
      className="permission-ask elicitation-ask"
      aria-label={`Log in to MCP server ${ask.server}`}
      data-elicitation-id={ask.id}
    >
      <p>
        <strong>Log in to MCP server {ask.server}</strong> — {ask.message}
      </p>
      <div className="button-row">
        <a className="button primary" href={ask.url} target="_blank" rel="noreferrer noopener">
          Open login page
        </a>
        <button type="button" className="danger" disabled={busy} onClick={() => void cancel()}>
          Cancel
        </button>
      </div>
      <ErrorAlert error={error} />
    </section>
  );
}

function ElicitationForm({ ask, onAnswer }: Props) {
  const fields = ask.fields ?? [];
  const required = ask.required ?? [];
  const [values, setValues] = useState<Record<string, Value>>(() =>
    Object.fromEntries(fields.map(([name, field]) => [name, initialValue(field)])),
  );
  const { busy, error, setError, run } = useAction();
  const send = async (accept: boolean) => {
    let content: Record<string, unknown> | undefined;
    if (accept && ask.mode === "form") {
      const made = formContent(fields, values, required);
      if ("missing" in made) {
        setError(`Fill in ${made.missing.join(", ")}.`);
        return;
      }
      content = made.content;
    }
    await run(() => onAnswer(accept, content));
  };
  return (
    <section
      className="permission-ask elicitation-ask"
      aria-label={`MCP server ${ask.server} asks: ${ask.message}`}
      data-elicitation-id={ask.id}
    >
      <p>
        <strong>MCP server {ask.server} asks</strong> — {ask.message}
      </p>
      {ask.mode === "url" ? (
        <p>
          Open{" "}
          <a href={ask.url} target="_blank" rel="noreferrer noopener">
            {ask.url}
          </a>{" "}
          <span className="muted">(what you enter there goes to the server, not to Arbor)</span>
        </p>
      ) : (
        <form
          className="elicitation-form"
          onSubmit={(e) => {
            e.preventDefault();
            void send(true);
          }}
        >
          {fields.map(([name, field]) => (
            <FieldInput
              key={name}
              name={name}
              field={field}
              value={values[name] ?? initialValue(field)}
              required={required.includes(name)}
              disabled={busy}
              onChange={(v) => {
                setError(undefined);
                setValues((was) => ({ ...was, [name]: v }));
              }}
            />
          ))}
        </form>
      )}
      <div className="button-row">
        <button type="button" className="primary" disabled={busy} onClick={() => void send(true)}>
          {ask.mode === "url" ? "Accept (I will open it)" : "Accept"}
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void send(false)}>
          Decline
        </button>
      </div>
      <ErrorAlert error={error} />
    </section>
  );
}

import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { listMcpOffers, type McpPromptItem, type McpServerOffer } from "../../api/mcp.js";
import { TextField } from "../common/TextField.js";

interface Props {
  disabled?: boolean;
  /** A resource (or a template, its `{variables}` left to fill in) to mention in the message as `@server:uri`. */
  onResource: (server: string, uri: string) => void;
  /** A prompt whose arguments the composer then asks for. */
  onPrompt: (server: string, prompt: McpPromptItem) => void;
}

const matches = (filter: string, ...texts: Array<string | undefined>) =>
  filter === "" || texts.some((t) => t?.toLowerCase().includes(filter));

/**
 * The configured MCP servers' resources and prompts, listed when the panel is first opened (listing
 * starts the servers, which a chat that uses none should not pay for). A disclosure: the button says
 * whether the panel is open, Escape closes it and gives the focus back to the button.
 */
export function McpPicker({ disabled = false, onResource, onPrompt }: Props) {
  const [open, setOpen] = useState(false);
  const [offers, setOffers] = useState<McpServerOffer[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [filter, setFilter] = useState("");
  const panelId = useId();
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open || offers !== undefined) return;
    const controller = new AbortController();
    listMcpOffers(controller.signal).then(
      (list) => setOffers(list),
      (err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => controller.abort();
  }, [open, offers]);

  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  // Escape on the button or anywhere in the panel closes it.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || !open) return;
    e.preventDefault();
    close();
  };
  const wanted = filter.trim().toLowerCase();

  return (
    <div className="mcp-picker">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        disabled={disabled}
        onClick={() => setOpen(!open)}
        onKeyDown={onKeyDown}
        aria-label="MCP resources and prompts"
      >
        MCP<span className="mcp-picker-more"> resources and prompts</span>
      </button>
      {open && (
        <section id={panelId} className="mcp-picker-panel" aria-label="MCP resources and prompts" onKeyDown={onKeyDown}>
          <TextField label="Filter" type="search" value={filter} onValue={setFilter} />
          {offers === undefined && !error && <p role="status">Asking the MCP servers what they offer…</p>}
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          {offers?.length === 0 && <p className="muted">No MCP server is configured (mcp.servers in arbor.json).</p>}
          {offers?.map((offer) => (
            <ServerOffer
              key={offer.server}
              offer={offer}
              filter={wanted}
              onResource={(uri) => {
                onResource(offer.server, uri);
                setOpen(false);
              }}
              onPrompt={(prompt) => {
                onPrompt(offer.server, prompt);
                setOpen(false);
              }}
            />
          ))}
        </section>
      )}
    </div>
  );
}

function ServerOffer({
  offer,
  filter,
  onResource,
  onPrompt,
}: {
  offer: McpServerOffer;
  filter: string;
  onResource: (uri: string) => void;
  onPrompt: (prompt: McpPromptItem) => void;
}) {
  const headingId = useId();
  const resources = offer.resources.filter((r) => matches(filter, r.name, r.title, r.uri, r.description));
  const templates = offer.templates.filter((t) => matches(filter, t.name, t.title, t.uriTemplate, t.description));
  const prompts = offer.prompts.filter((p) => matches(filter, p.name, p.title, p.description));
  const empty = resources.length + templates.length + prompts.length === 0;
  return (
    <section className="mcp-offer" aria-labelledby={headingId}>
      <h3 id={headingId}>{offer.server}</h3>
      {offer.error && <p className="error">Not listed: {offer.error}</p>}
      {!offer.error && empty && <p className="muted">Nothing{filter ? " matches" : " offered"}.</p>}
      {resources.length + templates.length > 0 && (
        <ul aria-label={`${offer.server} resources`}>
          {resources.map((r) => (
            <li key={r.uri}>
              <button type="button" className="link" title={r.description} onClick={() => onResource(r.uri)}>
                Attach {r.title ?? r.name}
              </button>{" "}
              <code>{r.uri}</code>
            </li>
          ))}
          {templates.map((t) => (
            <li key={t.uriTemplate}>
              <button type="button" className="link" title={t.description} onClick={() => onResource(t.uriTemplate)}>
                Insert template {t.title ?? t.name}
              </button>{" "}
              <code>{t.uriTemplate}</code>
            </li>
          ))}
        </ul>
      )}
      {prompts.length > 0 && (
        <ul aria-label={`${offer.server} prompts`}>
          {prompts.map((p) => (
            <li key={p.name}>
              <button type="button" className="link" onClick={() => onPrompt(p)}>
                Use prompt {p.title ?? p.name}
              </button>
              {p.description && <span className="muted"> {p.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

import { useState } from "react";

const SHOWN_LINES = 30;

/** Long text (a tool's output) shows its first lines and a button for the rest. */
export function FoldedText({ text, className }: { text: string; className?: string }) {
  const [open, setOpen] = useState(false);
  const lines = text.split("\n");
  const long = lines.length > SHOWN_LINES + 5;
  return (
    <>
      <pre className={className}>{long && !open ? lines.slice(0, SHOWN_LINES).join("\n") : text}</pre>
      {long && (
        <button type="button" className="link fold-toggle" onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all ${lines.length} lines`}
        </button>
      )}
    </>
  );
}

import { lazy, Suspense } from "react";

// The Markdown renderer and its highlighter are loaded on first use, so the tree of a huge session
// opens without them; until then the text shows as it is.
const Markdown = lazy(() => import("./Markdown.js"));

/** A message's text as rendered Markdown (plain text while the renderer loads). */
export function RichText({ text }: { text: string }) {
  return (
    <Suspense fallback={<p className="msg-text">{text}</p>}>
      <Markdown text={text} />
    </Suspense>
  );
}

import { lazy, Suspense, useLayoutEffect, useRef, useState } from "react";

// The Markdown renderer and its highlighter are loaded on first use, so the tree of a huge session
// opens without them; until then the text shows as it is.
const Markdown = lazy(() => import("./Markdown.js"));

/** Texts waiting to be rendered, each with what to call once it comes near the screen. */
const waiting = new Map<Element, () => void>();
/** One observer per scrolling box (a long chat holds hundreds of texts), dropped with its box. */
const observers = new WeakMap<Element, IntersectionObserver>();
let pageObserver: IntersectionObserver | undefined;

function scrollParent(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowY;
    if (overflow === "auto" || overflow === "scroll") return p;
  }
  return null;
}

function whenNearScreen(el: Element, show: () => void): () => void {
  const root = scrollParent(el);
  let observer = root ? observers.get(root) : pageObserver;
  if (!observer) {
    const own: IntersectionObserver = new IntersectionObserver(
      (changes) => {
        for (const change of changes) {
          if (!change.isIntersecting) continue;
          waiting.get(change.target)?.();
          waiting.delete(change.target);
          own.unobserve(change.target);
        }
      },
      // Half a box ahead (above and below), so a text scrolled to is usually rendered before it is seen.
      { root, rootMargin: "50% 0px" },
    );
    observer = own;
    if (root) observers.set(root, own);
    else pageObserver = own;
  }
  waiting.set(el, show);
  observer.observe(el);
  const watching = observer;
  return () => {
    waiting.delete(el);
    watching.unobserve(el);
  };
}

/**
 * A message's text as rendered Markdown. Parsing Markdown costs a few milliseconds a message, so a
 * text is rendered once it comes near the screen: a chat that shows hundreds of answers parses the
 * few in view, and the rest as they are scrolled to. Until then (and while the renderer loads) the
 * text shows as it is, so it can still be found in the page.
 */
export function RichText({ text }: { text: string }) {
  const [near, setNear] = useState(false);
  const placeholder = useRef<HTMLParagraphElement>(null);
  useLayoutEffect(() => {
    const el = placeholder.current;
    if (near || !el) return;
    return whenNearScreen(el, () => setNear(true));
  }, [near]);
  const plain = (
    <p className="msg-text" ref={near ? undefined : placeholder}>
      {text}
    </p>
  );
  if (!near) return plain;
  return (
    <Suspense fallback={plain}>
      <Markdown text={text} />
    </Suspense>
  );
}

import { createContext, lazy, type ReactNode, Suspense, useContext, useLayoutEffect, useRef, useState } from "react";

// The Markdown renderer and its highlighter are loaded on first use, so the tree of a huge session
// opens without them; until then the text shows as it is.
const Markdown = lazy(() => import("./Markdown.js"));

function scrollParent(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowY;
    if (overflow === "auto" || overflow === "scroll") return p;
  }
  return null;
}

/**
 * Texts waiting to be rendered, each with what to call once it comes near the screen, and one
 * observer per scrolling box (a long chat holds hundreds of texts), dropped with its box.
 */
class NearScreen {
  private readonly waiting = new Map<Element, () => void>();
  private readonly observers = new WeakMap<Element, IntersectionObserver>();
  private page: IntersectionObserver | undefined;

  watch(el: Element, show: () => void): () => void {
    const root = scrollParent(el);
    let observer = root ? this.observers.get(root) : this.page;
    if (!observer) {
      const own: IntersectionObserver = new IntersectionObserver(
        (changes) => {
          for (const change of changes) {
            if (!change.isIntersecting) continue;
            this.waiting.get(change.target)?.();
            this.waiting.delete(change.target);
            own.unobserve(change.target);
          }
        },
        // Half a box ahead (above and below), so a text scrolled to is usually rendered before it is seen.
        { root, rootMargin: "50% 0px" },
      );
      observer = own;
      if (root) this.observers.set(root, own);
      else this.page = own;
    }
    this.waiting.set(el, show);
    observer.observe(el);
    const watching = observer;
    return () => {
      this.waiting.delete(el);
      watching.unobserve(el);
    };
  }
}

const NearScreenContext = createContext<NearScreen | undefined>(undefined);

/** Shares the near-screen observers among every text below it (the app mounts one at its root). */
export function NearScreenProvider({ children }: { children: ReactNode }) {
  const [nearScreen] = useState(() => new NearScreen());
  return <NearScreenContext.Provider value={nearScreen}>{children}</NearScreenContext.Provider>;
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
  const shared = useContext(NearScreenContext);
  // Outside a provider a text watches for itself.
  const [own] = useState(() => (shared ? undefined : new NearScreen()));
  const nearScreen = shared ?? own;
  useLayoutEffect(() => {
    const el = placeholder.current;
    if (near || !el || !nearScreen) return;
    return nearScreen.watch(el, () => setNear(true));
  }, [near, nearScreen]);
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

import { memo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";

/**
 * A model's Markdown as the reader expects it: GFM tables, lists, task lists and links, code fences
 * highlighted in the page (highlight.js's common languages, bundled; nothing is fetched). Raw HTML
 * in the text is never rendered as HTML (no rehype-raw), and react-markdown drops unsafe URLs.
 */
const components: Components = {
  // Links leave the inspector; the opener gets no handle on this page.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  img: ({ node: _node, alt, ...props }) => <img {...props} alt={alt ?? ""} loading="lazy" className="md-image" />,
  table: ({ node: _node, ...props }) => (
    <div className="md-table-wrap">
      <table {...props} />
    </div>
  ),
};

const rehypePlugins = [[rehypeHighlight, { detect: false, ignoreMissing: true }]] as never;
const remarkPlugins = [remarkGfm];

function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

// Parsed again only when the text changes: react-markdown parses on every render, and a chat
// renders its messages again whenever anything on the page changes (a streamed token).
export default memo(Markdown);

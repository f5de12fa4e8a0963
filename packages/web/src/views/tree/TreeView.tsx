import type { Snapshot } from "@arbor/core";
import { type KeyboardEvent, useCallback, useMemo, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { anyJson } from "../../api/wire.js";
import { toggled } from "../../lib/toggle-set.js";
import { EntryDetails } from "./EntryDetails.js";
import { describeEntry, entryTag, indexSnapshot, layoutTree, type TreeRow, visibleIndexOf, visibleRows } from "./flatten.js";
import { VirtualList } from "./VirtualList.js";

const ROW_HEIGHT = 28;
const INDENT_PX = 16;

interface Props {
  snapshot: Snapshot;
  reload: () => Promise<void>;
  onContinue: (from: { entryId: string; description: string }) => void;
  onForked: (sessionId: string) => void;
}

function rowDomId(entryId: string): string {
  return `tree-row-${entryId}`;
}

/** The session tree: every branch, the active path highlighted, and the selected entry's operations. */
export function TreeView({ snapshot, reload, onContinue, onForked }: Props) {
  const index = useMemo(() => indexSnapshot(snapshot), [snapshot]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const layout = useMemo(() => layoutTree(index), [index]);
  const visible = useMemo(() => visibleRows(layout, collapsed), [layout, collapsed]);
  const rowAt = (i: number) => layout.rows[visible[i] as number] as TreeRow;
  const [selectedId, setSelectedId] = useState<string | undefined>(() => index.leafId ?? undefined);
  const selectedIndex = useMemo(() => {
    const position = selectedId === undefined ? undefined : layout.positionOf.get(selectedId);
    return position === undefined ? undefined : visibleIndexOf(visible, position);
  }, [layout, visible, selectedId]);
  const selected = selectedIndex === undefined ? undefined : rowAt(selectedIndex);
  const [notice, setNotice] = useState<string | undefined>();
  const pane = useRef<HTMLDivElement>(null);
  // The switched-to entry is now the leaf, its button disabled: the focus goes back to the tree, on
  // that entry, rather than to the page's top.
  const focusTree = useCallback(() => pane.current?.querySelector<HTMLElement>('[role="tree"]')?.focus(), []);
  const leafEntry = snapshot.session.leafEntryId ? index.byId.get(snapshot.session.leafEntryId) : undefined;
  // The leaf is a revert record right after a revert: that is when unrevert can put things back.
  const canUnrevert = leafEntry?.type === "custom" && leafEntry.customType === "arbor.revert";
  const unrevert = async () => {
    try {
      const r = await api(`/api/sessions/${encodeURIComponent(snapshot.session.id)}/unrevert`, anyJson, { method: "POST" });
      const files = (r as { files?: number }).files ?? 0;
      setNotice(`Revert undone: ${files} file${files === 1 ? "" : "s"} restored.`);
      await reload();
    } catch (err) {
      setNotice(err instanceof Error ? err.message : String(err));
    }
  };

  const toggle = useCallback((id: string) => {
    setCollapsed((prev) => toggled(prev, id));
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (visible.length === 0) return;
    const at = selectedIndex ?? 0;
    const page = Math.max(1, Math.floor(e.currentTarget.clientHeight / ROW_HEIGHT) - 1);
    const move = (to: number) => {
      e.preventDefault();
      setSelectedId(rowAt(Math.max(0, Math.min(visible.length - 1, to))).entry.id);
    };
    const row = rowAt(at);
    const isCollapsed = collapsed.has(row.entry.id);
    switch (e.key) {
      case "ArrowDown":
        return move(at + 1);
      case "ArrowUp":
        return move(at - 1);
      case "PageDown":
        return move(at + page);
      case "PageUp":
        return move(at - page);
      case "Home":
        return move(0);
      case "End":
        return move(visible.length - 1);
      case "ArrowRight":
        if (row.sideBranches > 0 && isCollapsed) {
          e.preventDefault();
          toggle(row.entry.id);
        }
        return;
      case "ArrowLeft":
        if (row.sideBranches > 0 && !isCollapsed) {
          e.preventDefault();
          toggle(row.entry.id);
        } else if (row.entry.parentId) {
          e.preventDefault();
          setSelectedId(row.entry.parentId);
        }
        return;
    }
  };

  const renderRow = (i: number, top: number) => {
    const row = rowAt(i);
    const { entry } = row;
    const isCollapsed = collapsed.has(entry.id);
    const label = index.labels[entry.id];
    const isLeaf = entry.id === index.leafId;
    const classes = ["tree-row", `kind-${entry.type}`];
    if (row.onPath) classes.push("on-path");
    if (entry.id === selectedId) classes.push("selected");
    return (
      // Focus stays on the tree, whose arrow keys move the selection; rows are its aria-activedescendant.
      // biome-ignore lint/a11y/useFocusableInteractive: see above.
      // biome-ignore lint/a11y/useKeyWithClickEvents: see above.
      <div
        key={entry.id}
        id={rowDomId(entry.id)}
        role="treeitem"
        aria-level={row.depth + 1}
        aria-selected={entry.id === selectedId}
        aria-expanded={row.sideBranches > 0 ? !isCollapsed : undefined}
        aria-current={isLeaf ? "location" : undefined}
        className={classes.join(" ")}
        style={{ top, paddingLeft: 4 + row.depth * INDENT_PX }}
        data-entry-id={entry.id}
        onClick={() => setSelectedId(entry.id)}
      >
        {row.sideBranches > 0 ? (
          <button
            type="button"
            className="twisty"
            tabIndex={-1}
            aria-label={`${isCollapsed ? "Show" : "Hide"} ${row.sideBranches} other branch${row.sideBranches > 1 ? "es" : ""}`}
            onClick={(e) => {
              e.stopPropagation();
              toggle(entry.id);
            }}
          >
            {isCollapsed ? "▸" : "▾"}
          </button>
        ) : (
          <span className="twisty-space" style={{ width: "1.2rem" }} />
        )}
        {row.branchStart && <span aria-hidden="true">↳</span>}
        {isLeaf && (
          <span className="leaf-mark" title="Leaf: where the next message goes">
            ●
          </span>
        )}
        <span className={`entry-type t-${entry.type}`}>{entryTag(entry)}</span>
        {label && <span className="label-chip">{label}</span>}
        <span className="preview">{describeEntry(entry)}</span>
      </div>
    );
  };

  const branches = useMemo(() => {
    let n = 0;
    for (const kids of Object.values(index.children)) if (kids.length > 1) n += kids.length - 1;
    return n;
  }, [index]);

  return (
    <div className="tree-layout">
      <div className="tree-pane" ref={pane}>
        <div className="tree-toolbar" role="status" data-testid="tree-stats">
          <span>
            {snapshot.entries.length} entries · {branches} side branch{branches === 1 ? "" : "es"} · active path{" "}
            {snapshot.activePath.length}
          </span>
          <span className="spacer" />
          {canUnrevert && (
            <button type="button" onClick={() => void unrevert()}>
              Undo revert
            </button>
          )}
          <button type="button" onClick={() => setCollapsed(new Set())} disabled={collapsed.size === 0}>
            Expand all
          </button>
        </div>
        {notice && (
          <p className="notice" role="status" data-testid="tree-notice">
            {notice}
          </p>
        )}
        <VirtualList
          rowCount={visible.length}
          rowHeight={ROW_HEIGHT}
          renderRow={renderRow}
          focusIndex={selectedIndex}
          focusKey={selectedId}
          onKeyDown={onKeyDown}
          label="Session tree"
          activeDescendant={selected ? rowDomId(selected.entry.id) : undefined}
        />
      </div>
      {selected ? (
        <EntryDetails
          key={selected.entry.id}
          sessionId={snapshot.session.id}
          entry={selected.entry}
          label={index.labels[selected.entry.id]}
          isLeaf={selected.entry.id === index.leafId}
          onPath={selected.onPath}
          reload={reload}
          onContinue={onContinue}
          onForked={onForked}
          onSwitched={focusTree}
          onReverted={setNotice}
        />
      ) : (
        <p className="entry-details muted">Select an entry to see it and branch from it.</p>
      )}
    </div>
  );
}

/** A block the assistant streams: its answer's text, or its reasoning. */
export type BlockKind = "text" | "reasoning";

/** How a protocol writes a block: its start, one delta in it, and its end. */
export interface BlockWriter<E> {
  start(kind: BlockKind, id: string): E[];
  delta(kind: BlockKind, id: string, delta: string): E;
  end(kind: BlockKind, id: string): E[];
}

/**
 * Text and reasoning in blocks, where the run stream sends bare deltas: a block is opened by its
 * first delta and closed (`close`) by whatever comes between, so every start has its end before the
 * next block, as the protocols' clients insist.
 */
export class DeltaBlocks<E> {
  private open: { kind: BlockKind; id: string } | undefined;

  constructor(
    private readonly writer: BlockWriter<E>,
    private readonly newId: (kind: BlockKind) => string,
  ) {}

  /** A token or reasoning event, as a delta of its block. */
  streamed(event: { type: "token" | "reasoning"; content: string }): E[] {
    return this.delta(event.type === "token" ? "text" : "reasoning", event.content);
  }

  /** `delta` in a block of `kind`, opened first when none is open (closing one of the other kind); an empty delta is nothing. */
  delta(kind: BlockKind, delta: string): E[] {
    if (delta === "") return [];
    const out: E[] = [];
    let open = this.open;
    if (open?.kind !== kind) {
      out.push(...this.close());
      open = { kind, id: this.newId(kind) };
      this.open = open;
      out.push(...this.writer.start(kind, open.id));
    }
    out.push(this.writer.delta(kind, open.id, delta));
    return out;
  }

  /** Ends the open block, if one is. */
  close(): E[] {
    const open = this.open;
    this.open = undefined;
    return open ? this.writer.end(open.kind, open.id) : [];
  }
}

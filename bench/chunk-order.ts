/**
 * The order check of the chunk streams (a) and (e) at the client: the k-th chunk received must carry index k
 * (`chunkText` in workloads.ts puts it at the start of every chunk's text). A chunk carrying any other index means
 * a chunk was reordered, lost or duplicated on the way.
 */
import { chunkIndex } from "./workloads.js";

export class ChunkOrder {
  /** Chunks seen since the last reset. */
  received = 0;
  /** Chunks that did not carry their position. */
  misplaced = 0;
  /** The first of those: where it arrived and what it carried. */
  first: { position: number; carried: number } | undefined;

  reset(): void {
    this.received = 0;
    this.misplaced = 0;
    this.first = undefined;
  }

  see(text: string | undefined): void {
    const position = this.received++;
    const carried = chunkIndex(text);
    if (carried === position) return;
    this.misplaced++;
    this.first ??= { position, carried };
  }

  get inOrder(): boolean {
    return this.misplaced === 0;
  }

  /** What went wrong, for the report; undefined when every chunk came in order. */
  describe(): string | undefined {
    if (!this.first) return undefined;
    const carried = Number.isNaN(this.first.carried) ? "no index" : `chunk ${this.first.carried}`;
    return (
      `chunk order broken: ${this.misplaced} of ${this.received} chunks out of place, the first at position ` +
      `${this.first.position} (it carried ${carried})`
    );
  }
}

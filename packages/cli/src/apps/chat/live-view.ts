/**
 * The screen model of a line-oriented UI: lines committed to the scrollback (printed once, never touched again)
 * and, on a terminal, a live region under them that is redrawn in place (streaming text, running tool calls, the
 * plan, the spinner). Without a terminal there is no live region: only committed lines are written.
 */

/** Where the view writes, and the terminal's size. */
export interface LiveViewTarget {
  write(text: string): void;
  /** Columns and rows of the terminal. */
  size(): { columns: number; rows: number };
  /** Whether to draw the live region (a TTY). */
  readonly tty: boolean;
}

const ERASE_DOWN = "\u001b[J";

/**
 * Contracts:
 * - `commit(lines)` prints lines above the live region, in order, each exactly once.
 * - `setLive(lines)` replaces the live region (TTY only); it is cut to the last `rows - 1` lines (with a marker)
 *   so that redrawing never has to reach above the top of the screen.
 * - The cursor rests at the end of the live region's last line (or at the start of a fresh line when it is empty).
 */
export class LiveView {
  readonly #target: LiveViewTarget;
  #live: string[] = [];
  #drawn = 0;

  constructor(target: LiveViewTarget) {
    this.#target = target;
  }

  /** The width renderers should use: one column short of the terminal, so no line triggers an automatic wrap. */
  get width(): number {
    return Math.max(20, this.#target.size().columns - 1);
  }

  /** Lines of the live region on the screen now (0: the cursor rests at the start of a fresh line). */
  get drawnLines(): number {
    return this.#drawn;
  }

  /** Whether a live region is drawn at all. */
  get tty(): boolean {
    return this.#target.tty;
  }

  /** Prints `lines` permanently, above the live region. */
  commit(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (!this.#target.tty) {
      this.#target.write(lines.map((line) => `${line}\n`).join(""));
      return;
    }
    this.#target.write(this.#erase() + lines.map((line) => `${line}\n`).join("") + this.#draw(this.#live));
  }

  /** Replaces the live region (ignored without a TTY). */
  setLive(lines: readonly string[]): void {
    if (!this.#target.tty) return;
    this.#live = [...lines];
    this.#target.write(this.#erase() + this.#draw(this.#live));
  }

  /** Empties the live region (before handing the terminal to readline, or at exit). */
  clearLive(): void {
    this.setLive([]);
  }

  #erase(): string {
    if (this.#drawn === 0) return "";
    const up = this.#drawn > 1 ? `\u001b[${this.#drawn - 1}A` : "";
    this.#drawn = 0;
    return `\r${up}${ERASE_DOWN}`;
  }

  #draw(lines: readonly string[]): string {
    if (lines.length === 0) return "";
    const max = Math.max(2, this.#target.size().rows - 1);
    const shown =
      lines.length > max
        ? [`… ${lines.length - max + 1} more lines above`, ...lines.slice(lines.length - max + 1)]
        : lines;
    this.#drawn = shown.length;
    return shown.join("\n");
  }
}

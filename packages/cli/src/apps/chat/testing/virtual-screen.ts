/**
 * A tiny terminal emulator for tests: applies what a program wrote (printable text, CR, LF, backspace, and the
 * CSI sequences a line UI uses: cursor up/down/forward/back/column, erase in display/line; SGR is ignored) to a
 * grid (LF moves to the start of the next line, as a tty with ONLCR does), so a test can read the screen as a person
 * would see it. Scrolls when the cursor passes the last row.
 */
export class VirtualScreen {
  readonly rows: number;
  readonly columns: number;
  /** Every line that scrolled off the top, oldest first. */
  readonly scrollback: string[] = [];
  #grid: string[][];
  #row = 0;
  #col = 0;
  #pendingWrap = false;

  constructor(columns = 80, rows = 24) {
    this.columns = columns;
    this.rows = rows;
    this.#grid = Array.from({ length: rows }, () => []);
  }

  /** Applies output. */
  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      if (char === "\u001b") {
        // eslint-disable-next-line no-control-regex
        const match = /^\u001b\[([0-9;?]*)([A-Za-z])/.exec(text.slice(i));
        if (match) {
          this.#csi(match[1]!, match[2]!);
          i += match[0].length - 1;
        } else if (text[i + 1] === "]") {
          const end = text.indexOf("\u0007", i);
          i = end === -1 ? text.length : end;
        }
        continue;
      }
      if (char === "\r") {
        this.#col = 0;
        this.#pendingWrap = false;
      } else if (char === "\n") {
        // A terminal's output processing (ONLCR) turns LF into CR LF.
        this.#col = 0;
        this.#lineFeed();
      } else if (char === "\b") this.#col = Math.max(0, this.#col - 1);
      else if (char >= " ") this.#put(char);
    }
  }

  /** The visible screen, one string per row, trailing spaces trimmed; trailing empty rows dropped. */
  lines(): string[] {
    const lines = this.#grid.map((row) =>
      Array.from(row, (cell) => cell ?? " ")
        .join("")
        .trimEnd(),
    );
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  /** Scrollback and screen together. */
  history(): string[] {
    return [...this.scrollback, ...this.lines()];
  }

  /** Where the cursor is. */
  get cursor(): { row: number; col: number } {
    return { row: this.#row, col: this.#col };
  }

  #put(char: string): void {
    if (this.#pendingWrap) {
      this.#col = 0;
      this.#lineFeed();
      this.#pendingWrap = false;
    }
    this.#grid[this.#row]![this.#col] = char;
    if (this.#col === this.columns - 1) this.#pendingWrap = true;
    else this.#col++;
  }

  #lineFeed(): void {
    this.#pendingWrap = false;
    if (this.#row < this.rows - 1) this.#row++;
    else {
      const top = this.#grid.shift()!;
      this.scrollback.push(
        Array.from(top, (cell) => cell ?? " ")
          .join("")
          .trimEnd(),
      );
      this.#grid.push([]);
    }
  }

  #csi(params: string, command: string): void {
    const n = Number(params.split(";")[0] || "0");
    const count = Math.max(1, n);
    this.#pendingWrap = false;
    switch (command) {
      case "A":
        this.#row = Math.max(0, this.#row - count);
        break;
      case "B":
        this.#row = Math.min(this.rows - 1, this.#row + count);
        break;
      case "C":
        this.#col = Math.min(this.columns - 1, this.#col + count);
        break;
      case "D":
        this.#col = Math.max(0, this.#col - count);
        break;
      case "G":
        this.#col = Math.min(this.columns - 1, count - 1);
        break;
      case "J":
        if (n === 0) {
          this.#grid[this.#row]!.length = Math.min(this.#grid[this.#row]!.length, this.#col);
          for (let r = this.#row + 1; r < this.rows; r++) this.#grid[r] = [];
        } else if (n === 2 || n === 3) this.#grid = Array.from({ length: this.rows }, () => []);
        break;
      case "K":
        if (n === 0) this.#grid[this.#row]!.length = Math.min(this.#grid[this.#row]!.length, this.#col);
        else if (n === 2) this.#grid[this.#row] = [];
        break;
      default:
        break;
    }
  }
}

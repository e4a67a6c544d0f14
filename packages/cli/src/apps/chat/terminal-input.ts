/**
 * Reading the user: on a terminal, one readline prompt per input line (history, Tab completion) and raw key
 * presses while a turn runs; without one, lines from stdin in order (a prompt line, then whatever the turn
 * asks for, e.g. a permission answer).
 */
import { createInterface, emitKeypressEvents, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/** A readline key press. */
export interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** What reading a prompt line gave: a line, end of input, or an interrupt (Ctrl-C on an empty line). */
export type LineResult = { kind: "line"; line: string } | { kind: "eof" } | { kind: "interrupt" };

/** Options of `TerminalInput`. */
export interface TerminalInputOptions {
  input: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  output: Writable;
  /** Whether input is an interactive terminal. */
  tty: boolean;
  /** readline completer (terminal only). */
  completer?: (line: string) => [string[], string];
}

/**
 * Contracts: `readLine` never overlaps itself; on a terminal the typed line is erased from the screen once
 * submitted (the transcript shows it); `onKeys` gets raw keys only between `readLine`s, and only on a terminal.
 */
export class TerminalInput {
  readonly #options: TerminalInputOptions;
  readonly #history: string[] = [];
  #queue: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;
  #lines: Interface | undefined;
  #keyListener: ((text: string, key: Key) => void) | undefined;
  #typeAhead = "";
  /** The readline prompt being edited (terminal only), while `readLine` waits. */
  #prompting: Interface | undefined;

  constructor(options: TerminalInputOptions) {
    this.#options = options;
    if (!options.tty) {
      this.#lines = createInterface({ input: options.input, terminal: false });
      this.#lines.on("line", (line) => this.#push(line));
      this.#lines.on("close", () => {
        this.#ended = true;
        this.#waiting?.(undefined);
        this.#waiting = undefined;
      });
    } else emitKeypressEvents(options.input);
  }

  /** Reads one line: on a terminal through a readline prompt, else the next line of input. */
  async readLine(prompt: string): Promise<LineResult> {
    if (!this.#options.tty) {
      const line = await this.nextLine();
      return line === undefined ? { kind: "eof" } : { kind: "line", line };
    }
    this.#stopKeys();
    return new Promise<LineResult>((resolve) => {
      const rl = createInterface({
        input: this.#options.input,
        output: this.#options.output,
        terminal: true,
        history: [...this.#history],
        historySize: 500,
        removeHistoryDuplicates: true,
        ...(this.#options.completer ? { completer: this.#options.completer } : {}),
      });
      let done = false;
      const finish = (result: LineResult) => {
        if (done) return;
        done = true;
        this.#prompting = undefined;
        rl.close();
        resolve(result);
      };
      rl.on("line", (line) => {
        if (line.trim() !== "") this.#history.unshift(line);
        // Erase the echoed input: the transcript prints the prompt itself.
        const columns = (this.#options.output as { columns?: number }).columns ?? 80;
        const rows = Math.max(1, Math.ceil((visibleLength(prompt) + line.length) / columns));
        this.#options.output.write(`\u001b[${rows}A\r\u001b[J`);
        finish({ kind: "line", line });
      });
      rl.on("SIGINT", () => {
        if (rl.line !== "") {
          rl.write(null, { ctrl: true, name: "u" });
          return;
        }
        this.#options.output.write("\n");
        finish({ kind: "interrupt" });
      });
      rl.on("close", () => finish({ kind: "eof" }));
      rl.setPrompt(prompt);
      rl.prompt();
      this.#prompting = rl;
      // What was typed while the last turn ran goes into the new line, as if typed now.
      const typed = this.#typeAhead;
      this.#typeAhead = "";
      if (typed !== "") rl.write(typed);
    });
  }

  /**
   * Erases the prompt line being edited, if one shows (true then), so that output can be written where it was: what
   * arrives while the user types (another client's turn in a shared session). `showPrompt` draws it again after.
   */
  hidePrompt(): boolean {
    const rl = this.#prompting;
    if (rl === undefined) return false;
    const { rows } = rl.getCursorPos();
    this.#options.output.write(`\r${rows > 0 ? `\u001b[${rows}A` : ""}\u001b[J`);
    return true;
  }

  /** Draws the prompt and what was typed so far again, at the cursor, the cursor where it was in the line. */
  showPrompt(): void {
    this.#prompting?.prompt(true);
  }

  /** The next input line without a prompt (non-terminal input); undefined at end of input. */
  nextLine(): Promise<string | undefined> {
    const line = this.#queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  /**
   * Sends raw key presses to `listener` until `readLine` or `close` (terminal only). Keys the listener does not
   * take (it returns false) are typed ahead into the next `readLine`.
   */
  onKeys(listener: (key: Key) => boolean): void {
    if (!this.#options.tty) return;
    this.#stopKeys();
    const input = this.#options.input;
    this.#keyListener = (text, key) => {
      if (listener(key ?? {})) return;
      if (!key?.ctrl && !key?.meta && key?.name !== "escape" && typeof text === "string") this.#typeAhead += text;
    };
    input.setRawMode?.(true);
    input.on("keypress", this.#keyListener);
    input.resume();
  }

  /** Stops reading. */
  close(): void {
    this.#stopKeys();
    this.#lines?.close();
    if (this.#options.tty) {
      this.#options.input.setRawMode?.(false);
      this.#options.input.pause();
    }
  }

  #stopKeys(): void {
    if (this.#keyListener === undefined) return;
    this.#options.input.off("keypress", this.#keyListener);
    this.#keyListener = undefined;
  }

  #push(line: string): void {
    if (this.#waiting !== undefined) {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting(line);
    } else this.#queue.push(line);
  }
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;]*m/g, "")].length;
}

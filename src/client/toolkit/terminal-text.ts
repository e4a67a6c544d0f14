/**
 * Agent-provided text made safe to print on a terminal. An agent's messages, thoughts, tool titles and output,
 * plans, errors and names are data, but a terminal executes control sequences inside them: an agent could set the
 * window title, write the user's clipboard (OSC 52), plant hyperlinks, move the cursor and erase or overwrite
 * lines, or reset the terminal. `TerminalTextFilter` removes all of them and keeps the text:
 *
 * - ESC sequences: CSI (`ESC [` ... final byte, SGR colours included: the agent does not style our terminal),
 *   OSC (`ESC ]` ... BEL or ST), DCS, SOS, PM and APC strings (`ESC P`, `ESC X`, `ESC ^`, `ESC _` ... ST), and
 *   every other escape (`ESC c`, `ESC 7`, `ESC ( B`, ...);
 * - the 8-bit C1 forms (U+0080 to U+009F: CSI U+009B, OSC U+009D, DCS U+0090, ...) and every other C1 control;
 * - C0 controls but newline and tab: BEL, backspace, carriage return (it would overwrite the line; a CRLF keeps
 *   its LF), vertical tab, form feed, DEL.
 *
 * Newlines and tabs are kept. Streaming: a sequence split across `push` calls is still removed whole. A string
 * sequence (OSC, DCS, ...) ends at its terminator, at a newline, or after 4096 characters, so a stray
 * introducer cannot swallow more than the rest of its line.
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const ESC = 0x1b;
const BEL = 0x07;
const LF = 0x0a;
const TAB = 0x09;
const MAX_STRING = 4096;
const MAX_SEQUENCE = 256;

const enum State {
  Ground,
  /** After ESC. */
  Escape,
  /** After ESC and intermediate bytes (0x20-0x2F). */
  EscapeIntermediate,
  /** Inside a CSI sequence (parameters and intermediates until a final byte 0x40-0x7E). */
  Csi,
  /** Inside an OSC, DCS, SOS, PM or APC string. */
  String,
  /** After ESC inside a string: `\` ends it (ST). */
  StringEscape,
}

/** Removes terminal control sequences from a stream of text (see the file comment). */
export class TerminalTextFilter {
  #state = State.Ground;
  /** Characters consumed by the current sequence (bounds it). */
  #length = 0;

  /** The safe part of `text`, the next piece of the stream. */
  push(text: string): string {
    if (this.#state === State.Ground && !UNSAFE.test(text)) return text;
    let out = "";
    let runStart = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.#state === State.Ground) {
        if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f)) continue;
        if (code === LF || code === TAB) continue;
        out += text.slice(runStart, i);
        runStart = i + 1;
        this.#enter(code);
        continue;
      }
      runStart = i + 1;
      if (this.#sequence(code)) {
        // A newline (or a tab) ended the sequence: it is text again.
        runStart = i;
      }
    }
    if (this.#state === State.Ground) out += text.slice(runStart);
    return out;
  }

  /** The stream ended: an unfinished sequence is dropped. Returns "" (for symmetry with `push`). */
  end(): string {
    this.#state = State.Ground;
    this.#length = 0;
    return "";
  }

  /** A control character in ground state: starts a sequence, or is dropped alone. */
  #enter(code: number): void {
    this.#length = 0;
    if (code === ESC) this.#state = State.Escape;
    else if (code === 0x9b) this.#state = State.Csi;
    else if (code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f)
      this.#state = State.String;
  }

  /** One character inside a sequence; returns true when it is a newline or tab that ended it (to be kept). */
  #sequence(code: number): boolean {
    this.#length++;
    if ((code === LF || code === TAB) && this.#state !== State.String && this.#state !== State.StringEscape) {
      this.#state = State.Ground;
      return true;
    }
    if (code === ESC && this.#state !== State.String) {
      this.#state = State.Escape; // a new escape starts over
      this.#length = 0;
      return false;
    }
    switch (this.#state) {
      case State.Escape:
        if (code === 0x5b) this.#state = State.Csi;
        else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f)
          this.#state = State.String;
        else if (code >= 0x20 && code <= 0x2f) this.#state = State.EscapeIntermediate;
        else this.#state = State.Ground; // a final byte (or anything else) ends the escape
        return false;
      case State.EscapeIntermediate:
        if (code < 0x20 || code > 0x2f || this.#length > MAX_SEQUENCE) this.#state = State.Ground;
        return false;
      case State.Csi:
        if ((code >= 0x40 && code <= 0x7e) || code < 0x20 || this.#length > MAX_SEQUENCE) this.#state = State.Ground;
        return false;
      case State.String:
        if (code === BEL || code === 0x9c) this.#state = State.Ground;
        else if (code === ESC) this.#state = State.StringEscape;
        else if (code === LF || this.#length > MAX_STRING) {
          this.#state = State.Ground;
          return code === LF;
        }
        return false;
      case State.StringEscape:
        this.#state = code === 0x5c ? State.Ground : State.String;
        return false;
      default:
        return false;
    }
  }
}

/** `text` with every terminal control sequence removed; newlines and tabs kept (see the file comment). */
export function sanitizeTerminalText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return new TerminalTextFilter().push(text);
}

const RAW_IN_JSON = /[\u007f-\u009f]/g;

/**
 * `JSON.stringify(value, undefined, space)` with DEL and the C1 controls (U+007F to U+009F, which JSON leaves raw:
 * U+009B is an 8-bit CSI, U+009D an OSC) written as `\u` escapes, so the text parses to the same value and carries
 * no control character a terminal would act on when it is printed (C0 controls are escaped by JSON already).
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, undefined, space);
  return text.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

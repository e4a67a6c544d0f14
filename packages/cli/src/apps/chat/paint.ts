/**
 * Colours for the chat UI: a `Painter` with the few styles the renderers use, or one that leaves text alone
 * (NO_COLOR set, TERM=dumb, or output that is not a terminal). Renderers only ever style through a painter, so
 * the plain painter gives exactly the same text without escape codes.
 */

/** The styles the chat renderers use. */
export interface ChatPainter {
  /** False for the plain painter: renderers may then add textual markers instead of colour alone. */
  readonly colour: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  text === "" ? "" : `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

/** A painter that adds nothing. */
export const plainPainter: ChatPainter = {
  colour: false,
  bold: plain,
  dim: plain,
  italic: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
};

/** A painter that uses ANSI SGR codes. */
export const ansiPainter: ChatPainter = {
  colour: true,
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  italic: wrap(3, 23),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  blue: wrap(34, 39),
  magenta: wrap(35, 39),
  cyan: wrap(36, 39),
};

/**
 * Whether to use colour on `stream`: only on a TTY, never with `NO_COLOR` set to a non-empty value
 * (https://no-color.org), never with TERM=dumb. `FORCE_COLOR` (non-empty, not "0") turns it on anyway.
 */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

/** The painter for a stream (see `wantsColour`). */
export function chatPainterFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): ChatPainter {
  return wantsColour(stream, env) ? ansiPainter : plainPainter;
}

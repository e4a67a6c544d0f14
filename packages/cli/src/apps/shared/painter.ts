/** Colours for terminal output, or none (NO_COLOR, or not a terminal). */
export interface Painter {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

/** A painter for a stream: colours only on a TTY without NO_COLOR set. */
export function painterFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Painter {
  const colour = Boolean(stream.isTTY) && (env.NO_COLOR === undefined || env.NO_COLOR === "") && env.TERM !== "dumb";
  if (!colour) return { bold: plain, dim: plain, green: plain, yellow: plain, cyan: plain };
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

/**
 * The logger hook. Libraries never print: stdout belongs to protocol frames. Pass a logger to see what the
 * library has to say; the default is silent. The CLI decides where log lines go.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function ignore(): void {}

/** A logger that drops everything: the default. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

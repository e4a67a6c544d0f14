/**
 * The logger hook. Libraries never print to stdout: it belongs to protocol frames. By default warnings and errors go
 * to stderr (`console.error`), as the official SDK reports its problems; debug and info are dropped. Pass
 * `logger: silentLogger` for silence, or your own logger to route everything elsewhere.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function ignore(): void {}

/** A logger that drops everything. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

function toStderr(level: string) {
  return (message: string, fields?: Record<string, unknown>): void => {
    // console.error writes to stderr in Node (and to the console in a browser); never console.log (stdout).
    // eslint-disable-next-line no-console
    if (fields === undefined) console.error(`acpkit ${level}: ${message}`);
    // eslint-disable-next-line no-console
    else console.error(`acpkit ${level}: ${message}`, fields);
  };
}

/**
 * The default logger of every connection: warnings and errors to stderr through `console.error` (one line each,
 * prefixed `acpkit warn:` / `acpkit error:`), debug and info dropped.
 */
export const defaultLogger: Logger = { debug: ignore, info: ignore, warn: toStderr("warn"), error: toStderr("error") };

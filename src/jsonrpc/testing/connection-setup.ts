/** Test helper: a `JsonRpcConnection` on a scripted link, with a logger that keeps what it is told. */
import { JsonRpcConnection, type Dispatcher } from "../connection.js";
import type { Logger } from "../logger.js";
import { RequestError } from "../request-error.js";
import { ScriptedLink } from "./scripted-link.js";

export type LogLine = { level: string; message: string; fields?: Record<string, unknown> };

export function capturingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A connection on a scripted link; requests without a handler answer -32601. */
export function setup(dispatcher: Partial<Dispatcher> = {}, options: { requestTimeoutMs?: number } = {}) {
  const link = new ScriptedLink();
  const logger = capturingLogger();
  const full: Dispatcher = {
    request:
      dispatcher.request ??
      ((method) => {
        throw RequestError.methodNotFound(method);
      }),
    notification: dispatcher.notification ?? (() => {}),
  };
  const connection = new JsonRpcConnection(link, full, { logger, ...options });
  return { link, logger, connection };
}

/** Lets pending I/O callbacks run. */
export const tick = () => new Promise((resolve) => setImmediate(resolve));

import { RequestError } from "../jsonrpc/index.js";
import type { AcpConnection } from "./acp-connection.js";

/** A handler object's method for one wire method: `[wire method, handler name, kind]`. */
export type HandlerNames = ReadonlyArray<readonly [method: string, handler: string, kind: "request" | "notification"]>;

type HandlerObject = Record<string, unknown> & {
  extMethod?: (method: string, params: Record<string, unknown>) => unknown;
  extNotification?: (method: string, params: Record<string, unknown>) => unknown;
};

/**
 * Routes the methods of a 1.x-style handler object (`Agent` or `Client`) on a connection. Only methods the object
 * has are routed, so an absent optional method answers -32601. `extMethod`/`extNotification` receive every other
 * request/notification with its full method name; a named protocol method the object lacks never falls through to them.
 */
export function bindHandlerObject(connection: AcpConnection, target: object, names: HandlerNames): void {
  const handlers = target as HandlerObject;
  const named = new Set<string>();
  for (const [method, name, kind] of names) {
    named.add(method);
    const fn = handlers[name];
    if (typeof fn !== "function") continue;
    // Requests also get their context (id, method, signal) as a second argument: an acpkit extra the official
    // handler signatures simply ignore.
    if (kind === "request")
      connection.routes.onRequest(method, { handler: (params, context) => fn.call(target, params, context) });
    else connection.routes.onNotification(method, { handler: (params) => fn.call(target, params) as void });
  }
  if (typeof handlers.extMethod === "function") {
    const extMethod = handlers.extMethod;
    connection.routes.onRequest("*", {
      handler: (params, _context, method) => {
        if (named.has(method)) throw RequestError.methodNotFound(method);
        return extMethod.call(target, method, params as Record<string, unknown>);
      },
    });
  }
  if (typeof handlers.extNotification === "function") {
    const extNotification = handlers.extNotification;
    connection.routes.onNotification("*", {
      handler: (params, method) => {
        if (named.has(method)) return;
        return extNotification.call(target, method, params as Record<string, unknown>) as void;
      },
    });
  }
}

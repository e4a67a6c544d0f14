import type { IncomingRequestContext } from "../jsonrpc/index.js";
import type { MaybePromise } from "../jsonrpc/messages.js";

/**
 * Turns raw params into typed ones, throwing when they are not valid. A function or an object with `parse` (zod-style).
 */
export type ParamsParser<Params> = { parse: (params: unknown) => Params } | ((params: unknown) => Params);

/** A request handler as the ACP core sees it: params already parsed. */
export type RequestRoute = {
  readonly handler: (params: unknown, context: IncomingRequestContext, method: string) => MaybePromise<unknown>;
  /** Custom parser; when absent, the method table's schema is used (and nothing for unknown methods). */
  readonly parse?: (params: unknown) => unknown;
};

/** A notification handler as the ACP core sees it. */
export type NotificationRoute = {
  readonly handler: (params: unknown, method: string) => MaybePromise<void>;
  readonly parse?: (params: unknown) => unknown;
};

/** Normalizes a `ParamsParser` to a function. */
export function parserFunction<Params>(
  parser: ParamsParser<Params> | undefined,
): ((params: unknown) => Params) | undefined {
  if (parser === undefined) return undefined;
  if (typeof parser === "function") return parser;
  return (params) => parser.parse(params);
}

/**
 * The handlers one connection routes to: by method, plus a fallback for requests and one for notifications
 * (extension methods, or anything the table does not know).
 */
export class Routes {
  readonly requests = new Map<string, RequestRoute>();
  readonly notifications = new Map<string, NotificationRoute>();
  fallbackRequest: RequestRoute | undefined;
  fallbackNotification: NotificationRoute | undefined;

  onRequest(method: string, route: RequestRoute): void {
    if (method === "*") this.fallbackRequest = route;
    else this.requests.set(method, route);
  }

  onNotification(method: string, route: NotificationRoute): void {
    if (method === "*") this.fallbackNotification = route;
    else this.notifications.set(method, route);
  }
}

/**
 * Reconnecting streams for clients of remote agents: see `ReconnectingLink` for the contracts.
 */
import type { Stream } from "../../jsonrpc/link.js";
import { streamFromLink, type LinkStreamOptions } from "../../transports/link-streams.js";
import { ReconnectingLink, type ReconnectOptions } from "./reconnecting-link.js";

export { ReconnectingLink, type ReconnectEvent, type ReconnectOptions } from "./reconnecting-link.js";
export { backoffDelay, type BackoffOptions } from "./backoff.js";
export { SessionLedger, type KnownSession } from "./session-ledger.js";

/** A `Stream` that reconnects, with the `ReconnectingLink` under it (for its `state` and `sessions`). */
export type ReconnectingStream = Stream & { readonly reconnecting: ReconnectingLink };

/**
 * A `Stream` over the links `open()` returns, reopened when one drops mid-session (see `ReconnectingLink`).
 * `first`, when given, is the already-open first stream (so its errors surface before this is called).
 *
 * @example
 * const stream = reconnectingStream(() => openRemoteStream(url, { token }), { onEvent: console.error });
 * const connection = new ClientSideConnection(() => client, stream);
 */
export function reconnectingStream(
  open: () => Stream | Promise<Stream>,
  options: ReconnectOptions & LinkStreamOptions = {},
  first?: Stream,
): ReconnectingStream {
  const link = new ReconnectingLink(open, options, first);
  return Object.defineProperty(streamFromLink(link, options), "reconnecting", {
    value: link,
    enumerable: true,
  }) as ReconnectingStream;
}

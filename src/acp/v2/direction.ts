/**
 * Protocol v2's method-direction checks, from the flavor's method table: a context may only call the methods the
 * peer handles (a v2 method name sent the wrong way is a `TypeError`, not a silent extension call), and an app may
 * not replace the params parser of a built-in method.
 */
import { methodIndex, peerOf, type ProtocolFlavor, type Side } from "../flavor.js";

const CANCEL_REQUEST = "$/cancel_request";

function knownMethods(flavor: ProtocolFlavor): ReadonlySet<string> {
  let names = known.get(flavor);
  if (!names) known.set(flavor, (names = new Set([...flavor.methods.map((m) => m.method), CANCEL_REQUEST])));
  return names;
}
const known = new WeakMap<ProtocolFlavor, ReadonlySet<string>>();

/** Throws when `method` is a method of the protocol that the peer of `side` does not handle as a `kind`. */
export function assertOutgoingDirection(
  flavor: ProtocolFlavor,
  side: Side,
  kind: "request" | "notification",
  method: string,
): void {
  const peer = methodIndex(flavor, side).peer;
  if ((kind === "request" ? peer.requests : peer.notifications).has(method)) return;
  if (kind === "notification" && method === CANCEL_REQUEST) return;
  if (knownMethods(flavor).has(method)) {
    throw new TypeError(
      `ACP v2 ${kind} method '${method}' is not valid in this direction (the ${peerOf(side)} does not handle it)`,
    );
  }
}

/**
 * Throws when a parser is given for a method the protocol defines (its params are parsed by the schema). The message
 * says what to do: register it without a parser when `side` handles it; otherwise nothing can be registered for it.
 */
export function assertNotBuiltIn(
  flavor: ProtocolFlavor,
  side: Side,
  kind: "request" | "notification",
  method: string,
): void {
  if (!knownMethods(flavor).has(method)) return;
  const here = methodIndex(flavor, side).here;
  const why =
    method === CANCEL_REQUEST
      ? ": the connection handles it (a request handler's signal aborts)"
      : (kind === "request" ? here.requests : here.notifications).has(method)
        ? "; register it without a parser"
        : `: it is a ${kind} the ${peerOf(side)} handles, not the ${side}`;
  throw new TypeError(`Cannot replace the built-in ACP v2 ${kind} parser for '${method}'${why}`);
}

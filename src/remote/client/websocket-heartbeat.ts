/**
 * A client's watch on a silent WebSocket server: a ping every `intervalMs` where the socket can send one (Node's
 * `ws`; a browser's WebSocket cannot, and answers the server's pings by itself), and a server that answered neither
 * that ping nor anything else before the next one is gone. A server process that is stopped, frozen or cut off
 * without a FIN leaves the connection looking open for as long as TCP keeps it (hours with nothing to send): the
 * WebSocket protocol obliges every endpoint to answer a ping, so the silence is the server's, whatever it runs.
 *
 * While the link does not read its socket (backpressure: the reader is slow), the answers wait unread in the socket:
 * nothing is counted then, and after a resume the server has a whole interval again.
 */
import { onSocketEvent, type WebSocketLike } from "../websocket-like.js";

/** What the link tells its heartbeat, and stops it with. */
export interface Heartbeat {
  /** Something came from the server: it is alive. */
  heard(): void;
  /** The link stopped (`true`) or resumed (`false`) reading its socket. */
  hold(held: boolean): void;
  stop(): void;
}

/** A socket that can ping (Node's `ws`). */
interface PingingSocket extends WebSocketLike {
  ping(): void;
}

function canPing(socket: WebSocketLike): socket is PingingSocket {
  return typeof (socket as { ping?: unknown }).ping === "function" && typeof socket.on === "function";
}

/**
 * Starts pinging `socket` every `intervalMs`; `silent` is called once when a whole interval passed with no answer to
 * the last ping and nothing else heard. Undefined when the socket cannot ping (the platform's WebSocket) or
 * `intervalMs` is not positive.
 */
export function startHeartbeat(
  socket: WebSocketLike,
  intervalMs: number | undefined,
  silent: (silenceMs: number) => void,
): Heartbeat | undefined {
  if (intervalMs === undefined || !(intervalMs > 0) || !canPing(socket)) return undefined;
  let alive = true;
  let held = false;
  let lastHeard = Date.now();
  const heard = () => {
    alive = true;
    lastHeard = Date.now();
  };
  const offPong = onSocketEvent(socket, "pong", heard);
  const timer = setInterval(() => {
    if (held) return;
    if (!alive) {
      stop();
      silent(Date.now() - lastHeard);
      return;
    }
    alive = false;
    try {
      socket.ping();
    } catch {
      // Closing: the close event ends the link.
    }
  }, intervalMs);
  timer.unref?.();
  const stop = () => {
    clearInterval(timer);
    offPong();
  };
  return {
    heard,
    hold(value: boolean) {
      held = value;
      if (!value) heard();
    },
    stop,
  };
}

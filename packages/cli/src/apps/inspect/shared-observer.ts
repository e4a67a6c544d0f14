/**
 * The `ObserverSource` of `acp inspect --attach URL SESSION`: attaches to a live session of an `acp serve` (shared
 * sessions) as an observer, with the whole history replayed, and feeds the observer lane with the frames of the
 * attachment as they travel: what the inspector sends (its `initialize`, `session/attach`) on the client side,
 * everything the server sends (the session's `session/update`s, queue and participant notices) on the agent side.
 * The lane ends when the session ends (`_acpkit/session/ended`) or the connection closes.
 */
import { openRemoteStream } from "@acpkit/sdk/remote";
import type { LaneHandle } from "./lane-hub.js";
import type { ObserverSource } from "./observer-seam.js";

const encoder = new TextEncoder();

/** Observes shared sessions with the server's token (or a session's share token). */
export function sharedSessionObserver(token: string | undefined): ObserverSource {
  return {
    describe: (url, sessionId) => `observing ${sessionId} at ${hostOf(url)}`,
    observe: (url, sessionId, lane) => observe(url, sessionId, lane, token),
    probe: (url, sessionId) => probe(url, sessionId, token),
  };
}

/** The server lists `sessionId` among its live shared sessions (skipped with a share token: it may not list). */
async function probe(url: string, sessionId: string, token: string | undefined): Promise<void> {
  const listing = `${url.replace(/^ws/i, "http").replace(/\/+$/, "")}/sessions`;
  let response: Response;
  try {
    response = await fetch(listing, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new Error(`cannot reach ${url} (${cause}); is acp serve running there?`, { cause: error });
  }
  if (response.status === 403) return;
  if (response.status === 401) throw new Error(`${url} needs its token: give it with --remote-token T or $ACP_TOKEN`);
  if (response.status === 404)
    throw new Error(`${url} lists no shared sessions (${listing}: 404): is it an acp serve with sharing on?`);
  if (!response.ok) throw new Error(`${listing} answered ${response.status}: ${(await response.text()).trim()}`);
  const { sessions } = (await response.json()) as { sessions: { sessionId: string }[] };
  if (!sessions.some((session) => session.sessionId === sessionId)) {
    const live = sessions.map((session) => session.sessionId).join(", ") || "none";
    throw new Error(`it is not live at ${url} (live sessions: ${live}; acp sessions URL lists them)`);
  }
}

async function observe(url: string, sessionId: string, lane: LaneHandle, token: string | undefined): Promise<void> {
  const stream = await openRemoteStream(url, {
    ...(token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }),
  });
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const send = async (message: Record<string, unknown>) => {
    lane.bytes("client", encoder.encode(`${JSON.stringify(message)}\n`));
    await writer.write(message as never);
  };
  let initialized: (() => void) | undefined;
  const initializeAnswer = new Promise<void>((resolve) => (initialized = resolve));
  let attached: ((error?: Error) => void) | undefined;
  const attachAnswer = new Promise<void>((resolve, reject) => {
    attached = (error) => (error ? reject(error) : resolve());
  });
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "the connection closed";
      const message = value as unknown as Record<string, any>;
      lane.bytes("agent", encoder.encode(`${JSON.stringify(message)}\n`));
      if (message.id === 1) initialized?.();
      if (message.id === 2 && "error" in message) attached?.(new Error(attachRefusal(sessionId, message.error)));
      else if (message.id === 2) attached?.();
      if (message.method === "_acpkit/session/ended") return `the session ended: ${message.params?.reason ?? ""}`;
    }
  })();
  // The connection ending before the attach's answer (a no-op once it came).
  reading.then(
    (why) => attached?.(new Error(`cannot attach to ${sessionId}: ${why} before the server answered`)),
    (error: unknown) => attached?.(error as Error),
  );
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "acp-inspect", version: "0.1.0" } },
  });
  try {
    // As every client: session methods only once initialize is answered (the rule engine checks the observer too).
    await Promise.race([initializeAnswer, attachAnswer]);
    await send({
      jsonrpc: "2.0",
      id: 2,
      method: "session/attach",
      params: { sessionId, role: "observer", historyPolicy: "full", _meta: { acpkit: { role: "observer" } } },
    });
    await attachAnswer;
    await reading;
  } finally {
    lane.end("client");
    lane.end("agent");
    await writer.close().catch(() => {});
  }
}

function attachRefusal(sessionId: string, error: { code?: number; message?: string }): string {
  const hint =
    error.code === -32601
      ? " (the server does not offer shared sessions: acp serve shares them unless --no-share)"
      : error.code === -32001
        ? " (acp sessions URL lists the live ones)"
        : "";
  return `cannot attach to ${sessionId}: ${error.message ?? "refused"}${hint}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

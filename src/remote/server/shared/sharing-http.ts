/**
 * The HTTP side of shared sessions on `AcpServer`: the listing endpoint (`GET <path>/sessions`, JSON, the server's
 * credentials only) that `acp sessions <url>` reads, and the rule for requests made with a share token: they may
 * open a connection (`initialize`) and use that connection only, never another one.
 */
import { HEADER_CONNECTION_ID, tokenFromSubprotocols } from "../../http-protocol.js";
import { textResponse } from "../responses.js";
import type { Logger } from "../../../jsonrpc/logger.js";
import type { AcpServerOptions } from "../server-options.js";
import type { ServerConnection } from "../server-connection.js";
import { SessionHub } from "./session-hub.js";

/** The server's hub, when it shares sessions (`sharedSessions`). */
export function hubOf(options: AcpServerOptions, logger: Logger): SessionHub | undefined {
  const sharing = options.sharedSessions;
  return sharing ? new SessionHub(sharing === true ? {} : sharing, logger) : undefined;
}

/** The listing's path: `sharedSessions.listPath`, by default beside the ACP endpoint. */
export function sessionsPathOf(options: AcpServerOptions): string {
  const sharing = options.sharedSessions;
  const configured = typeof sharing === "object" ? sharing.listPath : undefined;
  return configured ?? `${(options.path ?? "/acp").replace(/\/$/, "")}/sessions`;
}

/**
 * What sharing answers before the ACP handlers, if anything: the listing (the server's token only), or the refusal
 * of a share token's request outside its own connection.
 */
export function sharingGate(
  request: Request,
  listing: boolean,
  share: string | undefined,
  hub: SessionHub,
  connections: Iterable<ServerConnection>,
): Response | Promise<Response> | undefined {
  if (listing)
    return share === undefined
      ? sessionsResponse(hub)
      : textResponse(403, "Forbidden: a share token cannot list sessions; the server's token can");
  return share === undefined ? undefined : shareRefusal(request, share, (id) => grantOf(connections, hub, id));
}

/** The session a connection is limited to by its share token, if any: held here, or (in a cluster) elsewhere. */
function grantOf(connections: Iterable<ServerConnection>, hub: SessionHub, connectionId: string): string | undefined {
  for (const connection of connections) if (connection.id === connectionId) return connection.shared?.shareGrant;
  return hub.cross?.learnedGrant(connectionId);
}

/** `GET <path>/sessions`: the live sessions (of every node of a cluster), who is attached, whether a turn runs. */
export async function sessionsResponse(hub: SessionHub): Promise<Response> {
  let sessions;
  try {
    sessions = await hub.listAll();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return textResponse(
      503,
      `Service Unavailable: the cluster's sessions could not be read (${reason}); retry shortly`,
    );
  }
  return new Response(JSON.stringify({ sessions }), {
    status: 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

/** Whether the request's `Authorization` may hold a share token (then `learnShareToken` is awaited first). */
export function bearsShareToken(request: Request): boolean {
  return request.headers.get("authorization")?.includes("acpshare_") ?? false;
}

/** A WebSocket upgrade's share token (`Authorization`, or the bearer subprotocol) to check in a cluster, if any. */
export function upgradeShareToken(request: Request, hub: SessionHub): Promise<void> | undefined {
  if (hub.cross === undefined) return undefined;
  const header = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((protocol) => protocol.trim());
  const token = header ?? tokenFromSubprotocols(offered);
  return token === undefined ? undefined : hub.learnToken(token);
}

/**
 * In a cluster, a share token issued on another node is checked in the shared state before the request's token is
 * (the server calls this only when the `Authorization` header holds a share token).
 */
export async function learnShareToken(request: Request, hub: SessionHub): Promise<void> {
  const token = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  const cross = hub.cross;
  await Promise.all([
    token === undefined ? undefined : hub.learnToken(token),
    connectionId === null || cross === undefined
      ? undefined
      : cross.learnGrant(connectionId).catch((error: unknown) =>
          hub.logger.warn("shared sessions: a connection's share grant could not be read in the cluster's state", {
            error: error instanceof Error ? error.message : String(error),
          }),
        ),
  ]);
}

/**
 * A request made with `share`'s token: refused (403) unless it opens a connection or uses one opened with the same
 * token (`grantOf` tells which session a connection of this node is limited to; undefined: not limited, or unknown).
 */
export function shareRefusal(
  request: Request,
  share: string,
  grantOf: (connectionId: string) => string | undefined,
): Response | undefined {
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (connectionId === null) return request.method === "POST" ? undefined : forbidden();
  return grantOf(connectionId) === share ? undefined : forbidden();
}

function forbidden(): Response {
  return textResponse(
    403,
    "Forbidden: a share token lets its bearer observe one session through a connection opened with it; it gives no " +
      "access to other connections or to the session listing. Use the server's token for that.",
  );
}

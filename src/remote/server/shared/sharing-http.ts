/**
 * The HTTP side of shared sessions on `AcpServer`: the listing endpoint (`GET <path>/sessions`, JSON, the server's
 * credentials only) that `acp sessions <url>` reads, and the rule for requests made with a share token: they may
 * open a connection (`initialize`) and use that connection only, never another one.
 */
import { HEADER_CONNECTION_ID } from "../../http-protocol.js";
import { textResponse } from "../responses.js";
import type { SessionHub } from "./session-hub.js";

/** The listing's default path: beside the ACP endpoint. */
export function sessionsPathOf(path: string | undefined, configured: string | undefined): string {
  return configured ?? `${(path ?? "/acp").replace(/\/$/, "")}/sessions`;
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
  grantOf: (connectionId: string) => string | undefined,
): Response | undefined {
  if (listing)
    return share === undefined
      ? sessionsResponse(hub)
      : textResponse(403, "Forbidden: a share token cannot list sessions; the server's token can");
  return share === undefined ? undefined : shareRefusal(request, share, grantOf);
}

/** `GET <path>/sessions`: the live sessions, who is attached, whether a turn runs. */
export function sessionsResponse(hub: SessionHub): Response {
  return new Response(JSON.stringify({ sessions: hub.list() }), {
    status: 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
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

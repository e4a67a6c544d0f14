/**
 * The operational endpoints of `AcpServer` beside health (`healthPath`): readiness (`readyPath`: GET/HEAD, no token,
 * 200 "ready" or 503 with the reason; for load balancers, which take a node that is draining or cut off from its
 * backend's state out of rotation) and metrics (`metricsPath`: GET behind the token, Prometheus text format 0.0.4:
 * the server's connections and what its backend reports).
 */
import type { NodeBackend } from "./backend/backend.js";
import { textResponse } from "./responses.js";

/** Which operational endpoint a request is for (GET/HEAD on `healthPath`, `readyPath`, `metricsPath`), if any. */
export function operationOf(
  settings: {
    readonly healthPath?: string | undefined;
    readonly readyPath?: string | undefined;
    readonly metricsPath?: string | undefined;
  },
  pathname: string,
  method: string,
): "health" | "ready" | "metrics" | undefined {
  if (method !== "GET" && method !== "HEAD") return undefined;
  if (settings.healthPath !== undefined && pathname === settings.healthPath) return "health";
  if (settings.readyPath !== undefined && pathname === settings.readyPath) return "ready";
  if (settings.metricsPath !== undefined && pathname === settings.metricsPath) return "metrics";
  return undefined;
}

/** The readiness answer: not ready while closing, or while the backend says why not. */
export async function readinessResponse(closing: boolean, backend: NodeBackend): Promise<Response> {
  if (closing) return textResponse(503, "not ready: the server is shutting down\n");
  let problem: string | undefined;
  try {
    problem = await backend.ready?.();
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  return problem === undefined ? textResponse(200, "ready\n") : textResponse(503, `not ready: ${problem}\n`);
}

/** The metrics answer: the server's own gauges, then the backend's. */
export async function metricsResponse(
  server: { readonly connectionCount: number; readonly closing: boolean },
  backend: NodeBackend,
): Promise<Response> {
  const own =
    "# HELP acpkit_server_connections Connections (HTTP and WebSocket) whose agent runs on this server\n" +
    "# TYPE acpkit_server_connections gauge\n" +
    `acpkit_server_connections ${server.connectionCount}\n` +
    "# HELP acpkit_server_closing 1 while the server is shutting down\n" +
    "# TYPE acpkit_server_closing gauge\n" +
    `acpkit_server_closing ${server.closing ? 1 : 0}\n`;
  let extra: string;
  try {
    extra = (await backend.metrics?.()) ?? "";
  } catch (error) {
    extra = `# the backend's metrics failed: ${(error instanceof Error ? error.message : String(error)).replaceAll("\n", " ")}\n`;
  }
  return new Response(own + extra, {
    status: 200,
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}

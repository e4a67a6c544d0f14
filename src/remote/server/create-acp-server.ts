/**
 * `createAcpServer`: acpkit's own way to make an `AcpServer`, secure by default (a token unless told otherwise, the
 * `/acp` endpoint and a `/healthz` health path).
 */
import { AcpServer, type AcpServerOptions } from "./acp-server.js";

/** acpkit's own constructor: like `new AcpServer`, but a token is required unless `insecureNoToken` says otherwise. */
export function createAcpServer(options: AcpServerOptions & { readonly insecureNoToken?: boolean }): AcpServer {
  if (options.token === undefined && !options.insecureNoToken) {
    throw new TypeError(
      "createAcpServer needs a bearer token (options.token): anyone who can reach the server could otherwise run the agent. " +
        "Pass insecureNoToken: true only for a server nobody else can reach.",
    );
  }
  return new AcpServer({ path: "/acp", healthPath: "/healthz", ...options } as AcpServerOptions);
}

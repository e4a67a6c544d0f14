/**
 * `node/auth/`: authentication run by a client in a terminal: a method chosen with the client library's
 * `chooseAuthMethod`, then `authenticate` for an agent method or the agent's own command in the user's terminal for
 * a terminal method, retried once when opening a session answers `auth_required`.
 *
 * Spec: https://agentclientprotocol.com/protocol/initialization#authentication
 */
export { runTerminalAuth } from "./terminal-auth.js";
export { AuthFailure, authenticateWith, withAuthentication, type AuthContext } from "./authenticate.js";

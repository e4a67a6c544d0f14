/**
 * Read-only share tokens: a controller asks for one (`_acpkit/session/share`), hands it to someone, who can then
 * connect with it as the bearer token (instead of the server's) and observe that one session, nothing else. A
 * token is 32 random bytes (256 bits, base64url), valid while the session lives.
 */
import { constantTimeEqual } from "../access.js";

export class ShareTokens {
  readonly #bySession = new Map<string, string>();
  readonly #byToken = new Map<string, string>();

  /** The session's token (the same one while it lives: sharing twice does not revoke the first). */
  issue(sessionId: string): string {
    const existing = this.#bySession.get(sessionId);
    if (existing !== undefined) return existing;
    const bytes = new Uint8Array(32);
    globalThis.crypto.getRandomValues(bytes);
    const token = `acpshare_${base64url(bytes)}`;
    this.#bySession.set(sessionId, token);
    this.#byToken.set(token, sessionId);
    return token;
  }

  /** The session a token lets its bearer observe, if it is one. */
  sessionOf(token: string): string | undefined {
    if (!token.startsWith("acpshare_")) return undefined;
    const sessionId = this.#byToken.get(token);
    if (sessionId === undefined) return undefined;
    // The map lookup found it; compare again in constant time so timing says nothing more than the lookup.
    return constantTimeEqual(token, this.#bySession.get(sessionId) ?? "") ? sessionId : undefined;
  }

  revokeSession(sessionId: string): void {
    const token = this.#bySession.get(sessionId);
    if (token === undefined) return;
    this.#bySession.delete(sessionId);
    this.#byToken.delete(token);
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

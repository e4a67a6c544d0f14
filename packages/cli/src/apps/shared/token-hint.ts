/** What the programs tell a user whose remote agent wanted a token (acp exec, acp chat, acp connect). */

/** The environment variable a remote agent's token is read from when `--token` is not given. */
export const TOKEN_ENV = "ACP_TOKEN";

/**
 * `message` (an error of a remote agent) with what to do when the server wanted a token: a 401 is a missing or wrong
 * bearer token, which `acp serve` prints when it starts. Other messages come back unchanged.
 */
export function withTokenHint(message: string): string {
  if (!/\bHTTP 401\b/.test(message) || message.includes(TOKEN_ENV)) return message;
  return (
    `${message.replace(/[.\s]*$/, "")}. Pass --token or set ${TOKEN_ENV} ` +
    "(acp serve printed the token when it started)."
  );
}

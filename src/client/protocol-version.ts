/**
 * Checking the protocol version an agent answered `initialize` with (used by `acp exec` and `acp chat`). Pure.
 *
 * The spec: the client sends the latest version it supports; an agent that does not support it MUST answer with
 * the latest version it does support; a client that does not support the version the agent answered SHOULD close
 * the connection and tell the user.
 * See protocol docs: [Initialization: Protocol
 * version](https://agentclientprotocol.com/protocol/initialization#protocol-version)
 */

/** The protocol versions these programs speak (they ask for the latest). */
export const SPOKEN_PROTOCOL_VERSIONS: readonly number[] = [1];

/** What to do about the agent's answer: go on, go on with a warning, or stop with a message. */
export type ProtocolVersionVerdict = { ok: true; warning?: string } | { ok: false; message: string };

/** Judges the agent's `protocolVersion` against the one `asked` for (see the file comment). */
export function checkProtocolVersion(
  asked: number,
  answered: unknown,
  spoken: readonly number[] = SPOKEN_PROTOCOL_VERSIONS,
): ProtocolVersionVerdict {
  if (answered === asked) return { ok: true };
  const shown = JSON.stringify(answered) ?? String(answered);
  if (typeof answered !== "number" || !Number.isInteger(answered) || answered < 1) {
    return {
      ok: false,
      message:
        `the agent answered initialize with protocolVersion ${shown}, which is not a protocol version (asked ` +
        `for ${asked}); the agent is broken or speaks something else`,
    };
  }
  if (!spoken.includes(answered)) {
    const which = answered > asked ? "newer than any this client speaks" : "one this client does not speak";
    return {
      ok: false,
      message:
        `the agent answered with protocol version ${answered}, ${which} (it asked for ${asked}; it speaks ` +
        `${spoken.join(", ")}). ` +
        "Use an agent release that speaks one of those, or a newer acp",
    };
  }
  return {
    ok: true,
    warning:
      `the agent answered with protocol version ${answered}, not the ${asked} asked for; continuing in version ` +
      `${answered}`,
  };
}

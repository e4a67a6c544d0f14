/**
 * What the inspector's server and its page say to each other on the feed socket (`/feed`): JSON text messages for
 * everything but the wire itself, and binary records for the bytes each side of a lane wrote, exactly as they
 * crossed (the page splits them into frames and runs the rule engine over them). Shared by the server and the page:
 * no Node import here.
 *
 * A binary record: `[kind: u8][lane: u32 BE][time: f64 BE, ms since the epoch][bytes]`, kind 0 = bytes the client
 * wrote, 1 = bytes the agent wrote, 2 = the client's output ended, 3 = the agent's output ended. One WebSocket
 * message holds one record.
 */

/** Who holds a lane's client end. */
export type LaneRole =
  /** The page's own client, driving an agent the server started or reached. */
  | "client"
  /** An editor's conversation passing through `acp inspect --tap`: watched, not driven. */
  | "tap"
  /** The page playing a recorded client to a live agent (replay). */
  | "replay"
  /**
   * A session another client drives, watched through the server (shared sessions, issue 18). The page renders it
   * read-only; no source of this kind exists until the server side of shared sessions does.
   */
  | "observer"
  /** A cassette shown in the page (imported there; never on the server). */
  | "recorded";

/** One conversation the server relays or watches. */
export interface LaneInfo {
  readonly id: number;
  readonly role: LaneRole;
  /** What the page shows as the lane's name. */
  readonly label: string;
  /** The key the page chose when it opened the lane's socket (`/acp?client=KEY`), so it knows its own lanes. */
  readonly clientKey?: string;
  /** Milliseconds since the epoch. */
  readonly started: number;
}

/** How the inspector was started: what the page can do. */
export interface Hello {
  readonly type: "hello";
  readonly version: string;
  /** `agent`: a command the server starts per lane; `url`: a remote agent; `tap`: an editor's traffic; `cassette`: a file; `none`: nothing to drive. */
  readonly mode: "agent" | "url" | "tap" | "cassette" | "none";
  /** The agent's command line (mode `agent` and `tap`). */
  readonly agent?: readonly string[];
  /** The remote agent's URL (mode `url`), without credentials. */
  readonly url?: string;
  /** The directory sessions are created in and files are served from. */
  readonly cwd: string;
  /** Whether the page may open client lanes (`/acp`). */
  readonly canDrive: boolean;
  /** Whether `acp check agent` can be run against the agent from the page. */
  readonly canCheck: boolean;
  /** A cassette to show at once (mode `cassette`): its text. */
  readonly cassette?: { readonly name: string; readonly text: string };
  /** Observer attach (shared sessions): whether it is available, and why not. */
  readonly observe: { readonly available: boolean; readonly reason: string };
}

/** Server to page, as JSON text. */
export type ServerMessage =
  | Hello
  | { readonly type: "lane"; readonly lane: LaneInfo }
  | { readonly type: "lane-closed"; readonly lane: number; readonly reason?: string }
  | { readonly type: "stderr"; readonly lane: number; readonly line: string }
  | {
      readonly type: "terminal-output";
      readonly terminalId: string;
      readonly stream: "stdout" | "stderr";
      readonly text: string;
    }
  | { readonly type: "terminal-exit"; readonly terminalId: string; readonly exitStatus: unknown }
  | { readonly type: "host-result"; readonly id: number; readonly result?: unknown; readonly error?: HostError }
  | { readonly type: "check-result"; readonly id: number; readonly report?: unknown; readonly error?: string }
  | { readonly type: "notice"; readonly level: "info" | "warning" | "error"; readonly text: string };

/** A wire error from the host, as the page's client passes it on to the agent. */
export interface HostError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** Page to server, as JSON text. */
export type PageMessage =
  /** A client-side method the agent called on the page's client (fs/*, terminal/*), served by the server's hosts. */
  | {
      readonly type: "host";
      readonly id: number;
      readonly lane: number;
      readonly method: string;
      readonly params: unknown;
    }
  /** Run `acp check agent` against the agent command. */
  | { readonly type: "check"; readonly id: number; readonly only?: readonly string[] };

export const RECORD = { client: 0, agent: 1, endClient: 2, endAgent: 3 } as const;
const HEAD = 13;

/** A binary record: bytes `from` wrote on `lane` (or the end of its output when `bytes` is undefined). */
export function encodeRecord(
  lane: number,
  from: "client" | "agent",
  time: number,
  bytes: Uint8Array | undefined,
): Uint8Array {
  const out = new Uint8Array(HEAD + (bytes?.length ?? 0));
  const view = new DataView(out.buffer);
  out[0] =
    bytes === undefined
      ? from === "client"
        ? RECORD.endClient
        : RECORD.endAgent
      : from === "client"
        ? RECORD.client
        : RECORD.agent;
  view.setUint32(1, lane);
  view.setFloat64(5, time);
  if (bytes) out.set(bytes, HEAD);
  return out;
}

/** A decoded binary record. */
export interface WireRecord {
  readonly lane: number;
  readonly from: "client" | "agent";
  readonly time: number;
  /** Undefined: the side's output ended. */
  readonly bytes: Uint8Array | undefined;
}

/** Decodes a binary record; throws on a record too short to hold its head. */
export function decodeRecord(data: Uint8Array): WireRecord {
  if (data.length < HEAD) throw new Error(`a wire record needs ${HEAD} bytes of head, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const kind = data[0]!;
  const from = kind === RECORD.client || kind === RECORD.endClient ? "client" : "agent";
  const ended = kind === RECORD.endClient || kind === RECORD.endAgent;
  return {
    lane: view.getUint32(1),
    from,
    time: view.getFloat64(5),
    bytes: ended ? undefined : data.subarray(HEAD),
  };
}

/** The subprotocol the feed socket speaks (the token travels beside it, as `acp.bearer.<base64url>`). */
export const FEED_SUBPROTOCOL = "acp-inspect";

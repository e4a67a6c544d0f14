/**
 * Which capability gates which method. The schema says this only in prose ("Only available if the Agent supports
 * the `sessionCapabilities.list` capability"), so it lives here as data. `scripts/generate/methods.ts` verifies every
 * path against the schema's capability types and fails generation when one does not resolve, or when an entry names a
 * method that neither schema has.
 *
 * `advertisedBy` is the side whose `initialize` capabilities hold the flag; `path` starts inside `AgentCapabilities`
 * or `ClientCapabilities`. A present, non-null, non-false value at the path means "supported".
 */
export interface CapabilityGate {
  readonly advertisedBy: "agent" | "client";
  readonly path: readonly string[];
  /** Where the schema says so. */
  readonly source: string;
}

const agent = (path: string[], source: string): CapabilityGate => ({ advertisedBy: "agent", path, source });
const client = (path: string[], source: string): CapabilityGate => ({ advertisedBy: "client", path, source });

const terminal = client(
  ["terminal"],
  "ClientCapabilities.terminal: whether the client supports all terminal/* methods",
);
const nes = agent(["nes"], "AgentCapabilities.nes: omitted or null means no support for NES methods");
const providers = agent(["providers"], "AgentCapabilities.providers: {} means the agent supports provider methods");
const archive = agent(
  ["sessionCapabilities", "archive"],
  "ArchiveSessionRequest / UnarchiveSessionRequest: `sessionCapabilities.archive`",
);
const mcpOverAcp = agent(
  ["mcpCapabilities", "acp"],
  "McpCapabilities.acp: agent supports McpServer::Acp, whose traffic is mcp/message both ways",
);
const documentEvent = (event: string): CapabilityGate =>
  agent(["nes", "events", "document", event], `NesDocumentEventCapabilities.${event}: agent wants document/${event}`);

export const CAPABILITY_GATES: Readonly<Record<string, CapabilityGate>> = {
  "session/load": agent(["loadSession"], "LoadSessionRequest: only if the Agent supports `loadSession`"),
  "session/list": agent(["sessionCapabilities", "list"], "ListSessionsRequest: `sessionCapabilities.list`"),
  "session/delete": agent(["sessionCapabilities", "delete"], "DeleteSessionRequest: `sessionCapabilities.delete`"),
  "session/resume": agent(["sessionCapabilities", "resume"], "ResumeSessionRequest: `sessionCapabilities.resume`"),
  "session/close": agent(["sessionCapabilities", "close"], "CloseSessionRequest: `sessionCapabilities.close`"),
  // The request's description still says `session.fork`; the capability lives at sessionCapabilities.fork.
  "session/fork": agent(
    ["sessionCapabilities", "fork"],
    "SessionCapabilities.fork: whether the agent supports session/fork",
  ),
  "session/archive": archive,
  "session/unarchive": archive,
  "session/status": agent(["sessionCapabilities", "status"], "SessionStatusRequest: `sessionCapabilities.status`"),
  "session/set_title": agent(["sessionCapabilities", "title"], "SetSessionTitleRequest: `sessionCapabilities.title`"),
  logout: agent(["auth", "logout"], "AgentAuthCapabilities.logout: whether the agent supports the logout method"),
  "auth/status": agent(
    ["auth", "status"],
    "AgentAuthCapabilities.status: whether the agent supports the auth/status method",
  ),
  "fs/read_text_file": client(["fs", "readTextFile"], "ReadTextFileRequest: `fs.readTextFile`"),
  "fs/write_text_file": client(["fs", "writeTextFile"], "WriteTextFileRequest: `fs.writeTextFile`"),
  "terminal/create": terminal,
  "terminal/output": terminal,
  "terminal/release": terminal,
  "terminal/wait_for_exit": terminal,
  "terminal/kill": terminal,
  "elicitation/create": client(["elicitation"], "ClientCapabilities.elicitation: omitted or null means no elicitation"),
  "elicitation/complete": client(
    ["elicitation", "url"],
    "CompleteElicitationNotification: sent when a URL-based elicitation completes (ElicitationCapabilities.url)",
  ),
  "providers/list": providers,
  "providers/set": providers,
  "providers/disable": providers,
  "mcp/message": mcpOverAcp,
  // Next Edit Suggestions and document sync: no longer in the unstable schema, generated from the kept 2026-08
  // definitions for the `@acpkit/sdk/experimental/nes` entry (see scripts/generate/nes.ts).
  "nes/start": nes,
  "nes/suggest": nes,
  "nes/accept": nes,
  "nes/reject": nes,
  "nes/close": nes,
  "document/didOpen": documentEvent("didOpen"),
  "document/didChange": documentEvent("didChange"),
  "document/didClose": documentEvent("didClose"),
  "document/didSave": documentEvent("didSave"),
  "document/didFocus": documentEvent("didFocus"),
};

/**
 * The gates of protocol v2 (draft). v2 moved every session-scoped capability under `capabilities.session` and made
 * `session/list`, `session/resume` and `session/close` baseline: advertising `capabilities.session` requires them (and
 * `session/new`, `session/prompt`, `session/cancel`), so `capabilities.session` gates the baseline;
 * `auth/login` and `auth/logout` are gated by a non-empty `authMethods`, not by a capability, so they are not here.
 * Paths start inside the v2 `AgentCapabilities` / `ClientCapabilities` (sent as `capabilities` by both sides).
 */
const v2Archive = agent(
  ["session", "archive"],
  "v2 SessionCapabilities.archive: session/archive and session/unarchive",
);
const v2Providers = agent(["providers"], "v2 AgentCapabilities.providers: provider methods");
const v2Session = agent(
  ["session"],
  "v2 AgentCapabilities.session: advertising it requires the baseline session methods; omitted means no " +
    "session support",
);
export const V2_CAPABILITY_GATES: Readonly<Record<string, CapabilityGate>> = {
  "session/new": v2Session,
  "session/list": v2Session,
  "session/resume": v2Session,
  "session/close": v2Session,
  "session/prompt": v2Session,
  "session/cancel": v2Session,
  "session/delete": agent(["session", "delete"], "v2 SessionCapabilities.delete: session/delete"),
  "session/fork": agent(["session", "fork"], "v2 SessionCapabilities.fork: session/fork"),
  "session/archive": v2Archive,
  "session/unarchive": v2Archive,
  "session/status": agent(["session", "status"], "v2 SessionCapabilities.status: session/status"),
  "session/set_title": agent(["session", "title"], "v2 SessionCapabilities.title: session/set_title"),
  "auth/status": agent(["auth", "status"], "v2 AgentAuthCapabilities.status: auth/status"),
  "providers/list": v2Providers,
  "providers/set": v2Providers,
  "providers/disable": v2Providers,
  "mcp/message": agent(
    ["session", "mcp", "acp"],
    "v2 McpCapabilities.acp: McpServer of type acp, traffic as mcp/message",
  ),
  "elicitation/create": client(
    ["elicitation"],
    "v2 ClientCapabilities.elicitation: omitted or null means no elicitation",
  ),
  "elicitation/complete": client(
    ["elicitation", "url"],
    "v2 ElicitationCapabilities.url: URL-based elicitation completes",
  ),
};

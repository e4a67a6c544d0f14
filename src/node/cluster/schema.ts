/**
 * The cluster's schema: the `cluster` migration set (registered with the kit, applied by `migrate` at start).
 * - `acpkit_cluster_connections`: one row per Streamable HTTP connection: its owner (the node running its agent),
 *   the owner's lease (fencing token, expiry), the client's `initialize` and the agent's answer (what an adopting
 *   node replays), the next event id, when it was last used, and when and why it ended (ended rows are swept later).
 * - `acpkit_cluster_sessions`: the sessions a connection's agent opened (what an adopting node reattaches).
 * - `acpkit_cluster_inbox`: client messages accepted by a node that is not the owner, in arrival order (`seq`),
 *   waiting for the owner to take them.
 * - `acpkit_cluster_events`: every event of every stream (`stream` = '' for the connection stream, else the session
 *   id) with its id, kept until the connection is swept: any node serves a `Last-Event-ID` from here.
 * - `acpkit_cluster_streams`: one row per stream that was read: its reader (one at a time, with an expiry renewed by
 *   the reading node, and that node: a reader on a node that stopped beating is free to replace) and how far readers
 *   took it.
 * - `acpkit_cluster_prompts`: the requests still open across the connection: the client's `session/prompt` requests
 *   the agent has not answered (`kind` 'prompt': an adopting node answers them with an error) and the agent's requests
 *   the client has not answered (`kind` 'client': an adopting node cancels them, `$/cancel_request`).
 * - `acpkit_cluster_nodes`: each node and when it last beat.
 * - (2) shared sessions across nodes (`shared-relay.ts`): `acpkit_cluster_relay` (messages between the nodes' hubs),
 *   `acpkit_cluster_shared_sessions` (each node's listing), `acpkit_cluster_share_tokens` (SHA-256 of share tokens),
 *   and `share_grant` on a connection opened with a share token (the one session it may observe, on any node).
 * - (3) `credential` on a connection: the fingerprint of the token it was opened with (`AccessPolicy.credentialOf`,
 *   never the token); its requests on every node must present the same one.
 * - (4) `acpkit_cluster_attachments`: each attachment to a shared session (`shared-relay.ts`), written by the node
 *   running the session: the participant's connection and node, role, history policy, share grant, how it is
 *   described (client id, name, transport), and `last_seq`, the last numbered update sent to it (for a participant on
 *   another node, written with the relayed batch that carried it). A node adopting the session's connection
 *   (`host_connection`) rebuilds the attachments from here.
 * No foreign keys (their checks would cost more than the inserts): rows of a connection are written only while its
 * row exists, and deleted with it by the sweeper.
 * Never renumber or edit a released migration: add one.
 */
import { registerMigrations, type MigrationSet } from "../postgres/migrations.js";

export const CLUSTER_FEATURE = "cluster";
/**
 * The LISTEN/NOTIFY channel of the cluster: payloads `i:<connection id>` (inbox), `e:` (events), `x:` (ended),
 * `r:<node id>` (relayed shared-session messages for that node).
 */
export const CLUSTER_CHANNEL = "acpkit_cluster";

export const CONNECTIONS = "acpkit_cluster_connections";
export const SESSIONS = "acpkit_cluster_sessions";
export const INBOX = "acpkit_cluster_inbox";
export const EVENTS = "acpkit_cluster_events";
export const STREAMS = "acpkit_cluster_streams";
export const PROMPTS = "acpkit_cluster_prompts";
export const NODES = "acpkit_cluster_nodes";
export const RELAY = "acpkit_cluster_relay";
export const SHARED_SESSIONS = "acpkit_cluster_shared_sessions";
export const SHARE_TOKENS = "acpkit_cluster_share_tokens";
export const ATTACHMENTS = "acpkit_cluster_attachments";

export const CLUSTER_MIGRATIONS: MigrationSet = registerMigrations(CLUSTER_FEATURE, [
  {
    version: 1,
    name: "create cluster connections, sessions, inbox, events, streams, prompts and nodes",
    up: `
CREATE TABLE ${CONNECTIONS} (
  connection_id text COLLATE "C" PRIMARY KEY,
  owner_node text NOT NULL,
  lease_token bigint NOT NULL DEFAULT 1,
  lease_expires_at timestamptz NOT NULL,
  ready boolean NOT NULL DEFAULT false,
  initialize text NOT NULL,
  initialize_answer text,
  last_active_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  adoptions integer NOT NULL DEFAULT 0,
  ended_at timestamptz,
  end_reason text
);
CREATE INDEX acpkit_cluster_connections_by_owner ON ${CONNECTIONS} (owner_node) WHERE ended_at IS NULL;
CREATE INDEX acpkit_cluster_connections_by_expiry ON ${CONNECTIONS} (lease_expires_at) WHERE ended_at IS NULL;
CREATE TABLE ${SESSIONS} (
  connection_id text COLLATE "C" NOT NULL,
  session_id text COLLATE "C" NOT NULL,
  params text,
  PRIMARY KEY (connection_id, session_id)
);
CREATE TABLE ${INBOX} (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  connection_id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  session_id text,
  body text NOT NULL
);
CREATE INDEX acpkit_cluster_inbox_by_connection ON ${INBOX} (connection_id, seq);
CREATE TABLE ${EVENTS} (
  connection_id text COLLATE "C" NOT NULL,
  stream text COLLATE "C" NOT NULL,
  event_id bigint NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (connection_id, stream, event_id)
);
CREATE TABLE ${STREAMS} (
  connection_id text COLLATE "C" NOT NULL,
  stream text COLLATE "C" NOT NULL,
  reader text,
  reader_node text,
  reader_expires_at timestamptz,
  taken bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, stream)
);
CREATE TABLE ${PROMPTS} (
  connection_id text COLLATE "C" NOT NULL,
  request_key text COLLATE "C" NOT NULL,
  kind text NOT NULL DEFAULT 'prompt',
  session_id text NOT NULL,
  request_id text NOT NULL,
  PRIMARY KEY (connection_id, request_key)
);
CREATE TABLE ${NODES} (
  node_id text COLLATE "C" PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now(),
  draining boolean NOT NULL DEFAULT false
);`,
  },
  {
    version: 2,
    name: "create the shared sessions' relay, listing and share tokens",
    up: `
CREATE TABLE ${RELAY} (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  node_id text COLLATE "C" NOT NULL,
  body text NOT NULL
);
CREATE INDEX acpkit_cluster_relay_by_node ON ${RELAY} (node_id, seq);
ALTER TABLE ${CONNECTIONS} ADD COLUMN share_grant text;
CREATE TABLE ${SHARED_SESSIONS} (
  session_id text COLLATE "C" PRIMARY KEY,
  node_id text COLLATE "C" NOT NULL,
  host_connection text COLLATE "C" NOT NULL,
  summary text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE ${SHARE_TOKENS} (
  token_hash text COLLATE "C" PRIMARY KEY,
  session_id text COLLATE "C" NOT NULL,
  host_connection text COLLATE "C" NOT NULL,
  node_id text COLLATE "C" NOT NULL
);`,
  },
  {
    version: 3,
    name: "bind each connection to the credential it was opened with",
    up: `ALTER TABLE ${CONNECTIONS} ADD COLUMN credential text;`,
  },
  {
    version: 4,
    name: "keep the shared sessions' attachments for the node that adopts a session",
    up: `
CREATE TABLE ${ATTACHMENTS} (
  session_id text COLLATE "C" NOT NULL,
  connection_id text COLLATE "C" NOT NULL,
  host_connection text COLLATE "C" NOT NULL,
  node_id text COLLATE "C" NOT NULL,
  role text NOT NULL,
  history_policy text NOT NULL,
  share_grant text,
  participant text NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, connection_id)
);
CREATE INDEX acpkit_cluster_attachments_by_host ON ${ATTACHMENTS} (host_connection);`,
  },
]);

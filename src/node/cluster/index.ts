/**
 * A cluster of `AcpServer` nodes on PostgreSQL (Node only; `pg` is an optional peer): any request of a connection on
 * any node, resumable streams served by every node, and connections adopted by another node when theirs dies.
 */
export { PostgresServerBackend, type PostgresServerBackendOptions } from "./postgres-backend.js";
export { ClusterNode } from "./cluster-node.js";
export { PROMPT_LOST } from "./adoption.js";
export { CLUSTER_MIGRATIONS, CLUSTER_FEATURE } from "./schema.js";
export { DEFAULT_LEASE_MS } from "./cluster-settings.js";

/**
 * The `SessionStore` contract (`agent/toolkit/testing/store-contract.ts`) run against the PostgreSQL store, on a
 * real PostgreSQL 15 started for this file (a database per store opened). Its own guarantees (the lease, fencing,
 * restarts, kill -9) are tested in `postgres-session-lease.test.ts` and `postgres-session-faults.test.ts`.
 */
import { after, before } from "node:test";
import { silentLogger } from "../../jsonrpc/logger.js";
import type { SessionStore } from "../../agent/toolkit/session-store.js";
import { sessionStoreContract } from "../../agent/toolkit/testing/store-contract.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresSessionStore } from "./postgres-session-store.js";

const unavailable = postgresUnavailable();
let server: TestPostgres | undefined;
before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});
after(async () => {
  await server?.close();
});

const databases = new WeakMap<SessionStore, string>();
let count = 0;

async function openOn(connectionString: string): Promise<PostgresSessionStore> {
  const store = await PostgresSessionStore.open({ connection: { connectionString, logger: silentLogger } });
  databases.set(store, connectionString);
  return store;
}

sessionStoreContract({
  name: "PostgresSessionStore",
  skip: unavailable,
  open: async () => {
    const name = `contract_${++count}`;
    await server!.createDatabase(name);
    return openOn(server!.connectionStringFor(name));
  },
  reopen: async (store) => {
    await store.close?.();
    return openOn(databases.get(store)!);
  },
});

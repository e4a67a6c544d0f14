/** The `SessionStore` contract (`agent/toolkit/testing/store-contract.ts`) run against the file store. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import { sessionStoreContract } from "../../agent/toolkit/testing/store-contract.js";
import { FileSessionStore } from "./file-session-store.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

sessionStoreContract({
  name: "FileSessionStore",
  open: async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "acpkit-contract-"));
    dirs.push(dir);
    return new FileSessionStore({ dir });
  },
  reopen: async (store) => {
    await store.close?.();
    return new FileSessionStore({ dir: (store as FileSessionStore).dir });
  },
});

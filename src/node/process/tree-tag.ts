/**
 * The tag every process of a tree carries in its environment (`ACPKIT_TREE=<owner>-<n>`), and this process's owner
 * id: the prefix of every tag it hands out. See `process-tree.ts`.
 */
import { randomBytes } from "node:crypto";

/** The environment variable that tags every process of a tree. */
export const TREE_ENV = "ACPKIT_TREE";

/** This process's owner id. */
export const OWNER_ID = randomBytes(8).toString("hex");

/**
 * Where the built programs of @acpkit/cli are, for tests that run them as processes (from dist/test/e2e/support/
 * up to the repository root, then into packages/cli/dist).
 */
import { fileURLToPath } from "node:url";

/** The `acp` command's main module (what `acp` runs). */
export const ACP_CLI = fileURLToPath(new URL("../../../../packages/cli/dist/src/cli/main.js", import.meta.url));
/** The demo agent of `acp demo`, a small stdio agent. */
export const DEMO_AGENT = fileURLToPath(
  new URL("../../../../packages/cli/dist/src/apps/demo/demo-agent.js", import.meta.url),
);

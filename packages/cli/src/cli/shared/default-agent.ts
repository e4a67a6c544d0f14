/**
 * The agent `acp exec` runs without `--agent`: the reference agent, `acp agent`, run by this same Node and this
 * same `acp`. The one place to change it (the demo agent, `DEMO_AGENT_ARGV`, was the stand-in before it landed).
 */
import { fileURLToPath } from "node:url";

/** `acp`'s own entry point (dist/src/cli/main.js). */
export const ACP_MAIN = fileURLToPath(new URL("../main.js", import.meta.url));

/** The demo agent's argv (the default before the reference agent existed). */
export const DEMO_AGENT_ARGV: readonly string[] = [
  process.execPath,
  fileURLToPath(new URL("../../apps/demo/demo-agent.js", import.meta.url)),
];

/** The default agent's argv. */
export const DEFAULT_AGENT_ARGV: readonly string[] = [process.execPath, ACP_MAIN, "agent"];

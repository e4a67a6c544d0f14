/**
 * Module resolution hooks for running the official SDK's example programs unchanged:
 * - the programs' `import * as acp from "../acp.js"` resolves to acpkit's root when ACP_PROGRAM_SDK=acpkit, to the
 *   official SDK 2.4.0's root (`@agentclientprotocol/sdk`) when ACP_PROGRAM_SDK=official-2.4.0 (the programs are
 *   written on the `agent()` / `client()` app API, which 2.4.0 keeps), else to the 1.9.0 module it names: which is
 *   all "change the import" means;
 * - the example client's `node:child_process` resolves to ./spawn-shim.js, which starts the example agent it asks
 *   for (`npx tsx agent.ts`, a TypeScript file the package does not ship) as `node --import <register> agent.js`,
 *   on the SDK named by ACP_AGENT_SDK.
 */
import { fileURLToPath, pathToFileURL } from "node:url";

const EXAMPLES = "/sdk-1.9/dist/examples/";
const acpkitRoot = pathToFileURL(fileURLToPath(new URL("../../../../../src/entries/index.js", import.meta.url))).href;
const shim = new URL("./spawn-shim.js", import.meta.url).href;

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  next: NextResolve,
): Promise<{ url: string; shortCircuit?: boolean }> {
  const fromExample = context.parentURL?.includes(EXAMPLES) === true;
  if (fromExample && specifier === "../acp.js" && process.env.ACP_PROGRAM_SDK === "acpkit")
    return { url: acpkitRoot, shortCircuit: true };
  if (fromExample && specifier === "../acp.js" && process.env.ACP_PROGRAM_SDK === "official-2.4.0")
    return next("@agentclientprotocol/sdk", context);
  if (fromExample && specifier === "node:child_process" && context.parentURL!.endsWith("/client.js"))
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}

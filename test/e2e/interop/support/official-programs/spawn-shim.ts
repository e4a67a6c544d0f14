/**
 * `node:child_process` as the official example client sees it (see ./hooks.ts): `spawn("npx", ["tsx", ".../agent.ts"])`
 * starts the shipped `agent.js` on the SDK named by ACP_AGENT_SDK; every other call is the real `spawn`.
 */
import * as childProcess from "node:child_process";
import { fileURLToPath } from "node:url";

const register = fileURLToPath(new URL("./register.js", import.meta.url));

export function spawn(
  command: string,
  args: readonly string[],
  options: childProcess.SpawnOptions,
): childProcess.ChildProcess {
  const agentTs = args[1];
  if (/^npx(\.cmd)?$/.test(command) && args[0] === "tsx" && agentTs?.endsWith("/agent.ts")) {
    return childProcess.spawn(process.execPath, ["--import", register, agentTs.replace(/\.ts$/, ".js")], {
      ...options,
      env: { ...process.env, ACP_PROGRAM_SDK: process.env.ACP_AGENT_SDK ?? "official" },
    });
  }
  return childProcess.spawn(command, args, options);
}

export default { ...childProcess, spawn };

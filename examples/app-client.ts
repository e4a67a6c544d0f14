/**
 * An ACP client on the 2.x app API (`client()`, `connectWith`, `buildSession`): it starts an agent as a child
 * process (app-agent.js next to this file, or the command given after `--`), opens a session, sends one prompt,
 * prints the answer, and stops the agent.
 *
 *   node dist/examples/app-client.js ["prompt"] [-- agent command...]
 */
import { fileURLToPath } from "node:url";
import { client, methods } from "@acpkit/sdk";
import { launchAgent } from "@acpkit/sdk/node";

const args = process.argv.slice(2);
const dash = args.indexOf("--");
const prompt = (dash === -1 ? args : args.slice(0, dash)).join(" ") || "hello from the app client";
const argv =
  dash === -1 ? [process.execPath, fileURLToPath(new URL("./app-agent.js", import.meta.url))] : args.slice(dash + 1);

const launched = await launchAgent({ argv });
try {
  const app = client({ name: "example-app-client" }).onRequest(methods.client.session.requestPermission, () => ({
    outcome: { outcome: "cancelled" },
  }));
  const answer = await app.connectWith(launched.stream, async (agent) => {
    await agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const session = await agent.buildSession(process.cwd()).start();
    await session.prompt(prompt);
    return session.readText();
  });
  process.stdout.write(`${answer.trim()}\n`);
} finally {
  await launched.stop();
}

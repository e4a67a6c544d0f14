/**
 * Runs the official SDK's own v0.12 test suite (`@agentclientprotocol/sdk@0.12.0`'s compiled `dist/acp.test.js`,
 * installed as the `sdk-0.12` devDependency) against another implementation, never copying it: its import of
 * `./acp.js` is redirected to the module named by ACP_SUITE_TARGET (an absolute path to an ESM entry).
 */
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const target = process.env.ACP_SUITE_TARGET;
if (!target) throw new Error("ACP_SUITE_TARGET must name the implementation's entry module (an absolute path)");
const suite = `${root}node_modules/sdk-0.12/dist/acp.test.js`;

export default defineConfig({
  root,
  resolve: {
    alias: [{ find: /^\.\/acp\.js$/, replacement: target }],
  },
  test: {
    include: [suite],
    exclude: [],
    dir: root,
    watch: false,
    testTimeout: 60_000,
    server: { deps: { inline: [/sdk-0.12/] } },
  },
});

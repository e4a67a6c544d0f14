/**
 * `@acpkit/cli/connect`: the stdio-to-network bridge of `acp connect` as a library: an editor's stdio on one side,
 * a remote ACP agent (Streamable HTTP or WebSocket) on the other.
 */
export { runBridge, type BridgeIo, type BridgeOptions } from "../apps/connect/bridge.js";

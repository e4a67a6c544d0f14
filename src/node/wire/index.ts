/**
 * `node/wire/`: the wire tools' Node adapters: cassette files written synchronously (complete up to the last frame
 * even if the process is killed) and a `ScriptPeer` over Node streams. The tools themselves are browser-safe, in
 * src/wire.
 */
export { scriptPeerOver } from "./wire-peer.js";
export { openCassetteFile, type CassetteFile } from "./cassette-file.js";

/**
 * The agent process `acp check client` hands a client as `{agent}`: a dumb byte relay between its stdio and the
 * checker's socket on 127.0.0.1, so the scripted agent runs inside the checker. Usage:
 *
 *   node relay-main.js PORT [--linger] [--exit-code N]
 *
 * It first sends `ACPKIT-RELAY <pid>\n` on the socket, then copies stdin to the socket and the socket to stdout,
 * byte for byte. End of stdin half-closes the socket and ends the relay (unless `--linger`: an agent that ignores
 * end of input and must be stopped with a signal). The socket closing ends the relay with exit code N (default 0),
 * after stdout is flushed.
 */
import { connect } from "node:net";

const [portText, ...flags] = process.argv.slice(2);
const port = Number(portText);
const linger = flags.includes("--linger");
const exitAt = flags.indexOf("--exit-code");
const exitCode = exitAt === -1 ? 0 : Number(flags[exitAt + 1]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("relay: usage: relay-main.js PORT [--linger] [--exit-code N]\n");
  process.exit(2);
}

const socket = connect({ host: "127.0.0.1", port });
socket.on("error", (error) => {
  process.stderr.write(`relay: ${error.message}\n`);
  if (!linger) process.exit(exitCode === 0 ? 1 : exitCode);
});
socket.once("connect", () => {
  socket.write(`ACPKIT-RELAY ${process.pid}\n`);
  process.stdin.pipe(socket, { end: false });
});
process.stdin.once("end", () => {
  socket.end();
  if (!linger) process.stdout.write("", () => process.exit(0));
});
process.stdout.on("error", () => {});
socket.on("data", (chunk) => {
  if (!process.stdout.write(chunk)) {
    socket.pause();
    process.stdout.once("drain", () => socket.resume());
  }
});
socket.once("close", () => {
  if (linger) return;
  process.stdout.write("", () => process.exit(exitCode));
});
if (linger) {
  process.stdin.resume();
  setInterval(() => {}, 60_000);
}

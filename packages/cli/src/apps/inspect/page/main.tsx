/**
 * The inspector's page, bootstrapped: the token from the page's URL, the feed to the server, the store, and a
 * client lane opened at once when there is an agent to drive. `window.acpInspector` holds the store, read-only by
 * intent, for a person debugging from the browser's console.
 */
import { render } from "preact";
import { ClientLane } from "./model/client.js";
import type { ServerMessage } from "../feed-protocol.js";
import { Feed } from "./model/feed.js";
import { Slicer } from "./model/slicer.js";
import type { LaneModel } from "./model/lane.js";
import { Store } from "./model/store.js";
import { Actions } from "./view/actions.js";
import { App } from "./view/app.js";
import { importCassette } from "./view/tools.js";
import "./styles/theme.css";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/conversation.css";
import "./styles/wire.css";

const token = new URLSearchParams(location.search).get("token") ?? "";
const host = location.host;
const store = new Store();
const actions = new Map<string, Actions>();

/** A record's bytes are processed in time slices (model/slicer.ts); records larger than this are cut first. */
const PIECE = 16 * 1024;
type Piece = { lane: number; from: "client" | "agent"; time: number; bytes: Uint8Array | undefined };
const slicer = new Slicer<Piece | (() => void)>((item) => {
  if (typeof item === "function") return item();
  const model = store.lanes.get(item.lane);
  if (!model) return;
  if (item.bytes === undefined) model.endOf(item.from, item.time);
  else model.bytes(item.from, item.bytes, item.time);
});

const openClientLane = () => {
  const hello = store.hello!;
  const client = new ClientLane({ store, feed, host, token, version: hello.version });
  actions.set(client.key, new Actions(client, store, hello.cwd));
  void client.initialized.then(
    () => {
      const lane = [...store.lanes.values()].find((item) => item.info.clientKey === client.key);
      if (lane) client.laneId = lane.info.id;
      if (client.laneId !== undefined)
        void actions
          .get(client.key)!
          .newSession()
          .catch(() => {});
    },
    (error: Error) => store.notify("error", `the agent did not answer initialize: ${error.message}`),
  );
};

function serverMessage(message: ServerMessage): void {
  const first = message.type === "hello" && store.hello === undefined;
  store.serverMessage(message);
  if (message.type === "lane" && message.lane.clientKey) {
    const owner = actions.get(message.lane.clientKey);
    if (owner) {
      owner.client.laneId = message.lane.id;
      store.select(message.lane.id);
    }
  }
  if (first && message.type === "hello") {
    if (message.cassette) importCassette(store, message.cassette.name, message.cassette.text);
    // A cassette opens on its own lane; a client lane for replaying it is one click away.
    if (message.canDrive && !message.cassette) openClientLane();
  }
}

const feed: Feed = new Feed(`ws://${host}/feed`, token, {
  message(message) {
    // Messages keep their place among the records still being processed (a lane's end after its last frames).
    if (message.type !== "hello" && slicer.pending > 0) slicer.push(() => serverMessage(message));
    else serverMessage(message);
  },
  record(lane, from, time, bytes) {
    if (bytes === undefined) return slicer.push({ lane, from, time, bytes });
    for (let at = 0; at < bytes.length; at += PIECE)
      slicer.push({ lane, from, time, bytes: bytes.subarray(at, Math.min(bytes.length, at + PIECE)) });
  },
  closed(reason) {
    store.connected = false;
    store.closedReason = reason;
    store.changed();
  },
});

const actionsOf = (lane: LaneModel) =>
  lane.info.role === "client" && lane.info.clientKey ? actions.get(lane.info.clientKey) : undefined;

(window as unknown as { acpInspector: unknown }).acpInspector = { store };
render(
  <App store={store} context={{ store, feed, host, token }} actionsOf={actionsOf} openClientLane={openClientLane} />,
  document.getElementById("app")!,
);

/**
 * The inspector's page, bootstrapped: the token from the page's URL, the feed to the server, the store, and a
 * client lane opened at once when there is an agent to drive. `window.acpInspector` holds the store, read-only by
 * intent, for a person debugging from the browser's console.
 */
import { render } from "preact";
import { ClientLane } from "./model/client.js";
import { Feed } from "./model/feed.js";
import type { LaneModel } from "./model/lane.js";
import { Store } from "./model/store.js";
import { Actions } from "./view/actions.js";
import { App } from "./view/app.js";
import { importCassette } from "./view/tools.js";
import "./styles.css";

const token = new URLSearchParams(location.search).get("token") ?? "";
const host = location.host;
const store = new Store();
const actions = new Map<string, Actions>();
let feed: Feed;

const openClientLane = () => {
  const hello = store.hello!;
  const client = new ClientLane({ store, feed, host, token, version: hello.version });
  actions.set(client.key, new Actions(client, store, hello.cwd));
  void client.initialized.then(
    () => {
      const lane = [...store.lanes.values()].find((item) => item.info.clientKey === client.key);
      if (lane) client.laneId = lane.info.id;
      if (client.laneId !== undefined) void actions.get(client.key)!.newSession().catch(() => {});
    },
    (error: Error) => store.notify("error", `the agent did not answer initialize: ${error.message}`),
  );
};

feed = new Feed(`ws://${host}/feed`, token, {
  message(message) {
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
  },
  record(lane, from, time, bytes) {
    const model = store.lanes.get(lane);
    if (!model) return;
    if (bytes === undefined) model.endOf(from, time);
    else model.bytes(from, bytes, time);
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

// Muggins' service worker (served at /sw.js, scope /): the app keeps working with no connection.
// docs/DESIGN.md "Offline" says why; OFFLINE.md's contracts 2 and 3 say where each request goes:
//
// - /phone/... is the phone's own app, always: answered by the engine (a Pyodide worker in a
//   page, reached by postMessage), except /phone/static/ and /phone/vendor/, the cached files.
// - /static/, /vendor/, /offline/: the bundle of the version in use, cache first.
// - Any other request goes to the network first. When the network fails, a page visited before
//   (or one of the precached pages) comes from the cache, and anything else the app serves is
//   answered by the engine under the same path. A shared match's taps (POST /m/<token>/...) are
//   kept in IndexedDB instead and sent, in order, when the connection is back; a 409 stops the
//   sending and the page asks the player whether to send the rest anyway or drop them.
//
// Versions: bundle.json names the version. The first install precaches it and serves it at once;
// a later version is fetched in the background into its own cache and put in use on the next
// start (a page load with no other Muggins tab open), after which the page shows "updated".
// Messages to pages carry no words: pages show their own, in the player's language.

const STATE_CACHE = "muggins-state";
const STATE_URL = "/offline/__state__";
const PAGES_CACHE = "muggins-pages";
const VERSION_PREFIX = "muggins-v-";
const PRECACHED_PAGES = ["/", "/peg", "/offline/shell"];
const PHONE_LISTS = ["/matches"];
const ENGINE_TIMEOUT_MS = 120000;
const PROBE_TIMEOUT_MS = 400;
const QUEUE_DB = "muggins-queue";

// ------------------------------------------------------------------ the version state

async function readState() {
  const cache = await caches.open(STATE_CACHE);
  const found = await cache.match(STATE_URL);
  return found ? found.json() : { current: null, next: null, updated: null };
}

async function writeState(state) {
  const cache = await caches.open(STATE_CACHE);
  await cache.put(STATE_URL, new Response(JSON.stringify(state), { headers: { "Content-Type": "application/json" } }));
}

async function broadcast(message) {
  for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
    client.postMessage(message);
  }
}

// Download one version whole into its own cache; a version is usable only once complete.
async function precache(manifestResponse, announce) {
  const manifest = await manifestResponse.clone().json();
  const name = VERSION_PREFIX + manifest.version;
  const cache = await caches.open(name);
  const urls = [...manifest.precache, ...PRECACHED_PAGES];
  let done = 0;
  await Promise.all(urls.map(async (url) => {
    if (!(await cache.match(url))) {
      const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
      if (!response.ok) { throw new Error(url + " " + response.status); }
      await cache.put(url, response);
    }
    done += 1;
    if (announce) { await broadcast({ type: "precache", done, total: urls.length, version: manifest.version }); }
  }));
  await cache.put("/offline/bundle.json", manifestResponse);
  return manifest.version;
}

async function fetchManifest() {
  const response = await fetch("/offline/bundle.json", { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) { throw new Error("bundle.json " + response.status); }
  return response;
}

async function dropOtherVersions(keep) {
  for (const name of await caches.keys()) {
    if (name.startsWith(VERSION_PREFIX) && name !== VERSION_PREFIX + keep) { await caches.delete(name); }
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const state = await readState();
    const version = await precache(await fetchManifest(), !state.current);
    if (!state.current) {
      state.current = version;
      await writeState(state);
      await broadcast({ type: "offline-ready", version });
      await self.skipWaiting();  // the first visit: nothing older to wait for
    } else if (version !== state.current) {
      state.next = version;
      await writeState(state);
    }
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    await self.clients.claim();
    await promoteIfStarting(true);
  })());
});

// A new version is put in use when Muggins starts afresh: no other window of it open.
async function promoteIfStarting(starting) {
  const state = await readState();
  if (!state.next || state.next === state.current) { return; }
  const windows = await self.clients.matchAll({ type: "window" });
  if (!starting && windows.length > 1) { return; }
  if (!(await caches.has(VERSION_PREFIX + state.next))) { state.next = null; await writeState(state); return; }
  state.current = state.next;
  state.next = null;
  state.updated = state.current;
  await writeState(state);
  await dropOtherVersions(state.current);
  await caches.delete(PAGES_CACHE);  // pages of the old version link to its files
}

let checking = null;
async function checkForUpdate() {
  const state = await readState();
  if (!state.current) { return; }  // the first install is still under way
  const response = await fetchManifest();
  const manifest = await response.clone().json();
  if (manifest.version === state.current || manifest.version === state.next) { return; }
  const version = await precache(response, false);
  const fresh = await readState();
  fresh.next = version;
  await writeState(fresh);
}

async function currentCache() {
  const state = await readState();
  return state.current ? caches.open(VERSION_PREFIX + state.current) : null;
}

// ------------------------------------------------------------------ asking the engine

function viaChannel(client, message, timeoutMs) {
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
    channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data); };
    client.postMessage(message, [channel.port2]);
  });
}

async function readyClient(exceptId) {
  for (const client of await self.clients.matchAll({ type: "window" })) {
    if (client.id === exceptId) { continue; }
    try {
      const answer = await viaChannel(client, { type: "engine-ready?" }, PROBE_TIMEOUT_MS);
      if (answer && answer.ready) { return client; }
    } catch (e) { /* that page has no engine running, or is gone */ }
  }
  return null;
}

async function shellPage() {
  const cache = await currentCache();
  const shell = cache && await cache.match("/offline/shell");
  return shell || Response.error();
}

// A page shown from the cache because the server cannot be reached will want its engine: tell it to
// start now rather than at the first tap (it saves the page's load time off the first answer).
async function startEngineIn(clientId) {
  for (let i = 0; clientId && i < 50; i++) {
    const client = await self.clients.get(clientId);
    if (client) { client.postMessage({ type: "start-engine" }); return; }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function askEngine(request, clientId, navigate) {
  let client = clientId ? await self.clients.get(clientId) : null;
  if (!client) { client = await readyClient(null); }
  if (!client) { return navigate ? shellPage() : Response.error(); }
  const body = ["GET", "HEAD"].includes(request.method) ? null : await request.clone().arrayBuffer();
  const message = { type: "engine-request", request: {
    method: request.method, url: request.url, headers: [...request.headers], body } };
  let answer;
  try {
    answer = await viaChannel(client, message, ENGINE_TIMEOUT_MS);
  } catch (e) {
    return navigate ? shellPage() : Response.error();
  }
  if (!answer || answer.error) { return navigate ? shellPage() : Response.error(); }
  const empty = [101, 204, 205, 304].includes(answer.status) || request.method === "HEAD";
  const headers = new Headers();
  for (const [name, value] of answer.headers) {
    if (name.toLowerCase() !== "set-cookie") { headers.append(name, value); }
  }
  return new Response(empty ? null : answer.body, { status: answer.status, headers });
}

// ------------------------------------------------------------------ routes

async function cacheFirst(request, path) {
  const cache = await currentCache();
  const found = cache && await cache.match(path || request.url, { ignoreSearch: false });
  if (found) { return found; }
  return fetch(path ? new Request(path, { credentials: "same-origin" }) : request);
}

async function networkFirst(event) {
  const request = event.request;
  const navigate = request.mode === "navigate";
  if (navigate) { await promoteIfStarting(false); }
  try {
    const response = await fetch(request);
    if (navigate && response.ok && (response.headers.get("Content-Type") || "").startsWith("text/html")) {
      const copy = response.clone();
      event.waitUntil(caches.open(PAGES_CACHE).then((cache) => cache.put(request.url, copy)));
    }
    return response;
  } catch (offline) {
    // The match list: offline, the matches a player can open are the phone's own, which the
    // server's page (cached) does not list; the phone's app lists them.
    if (navigate && PHONE_LISTS.includes(new URL(request.url).pathname)) {
      return askEngine(request, event.clientId, navigate);
    }
    if (navigate) {
      const cache = await currentCache();
      const kept = await caches.match(request.url, { cacheName: PAGES_CACHE }) ||
        (cache && await cache.match(request.url));
      if (kept) {
        event.waitUntil(startEngineIn(event.resultingClientId));
        return kept;
      }
    }
    if (isSharedMatch(new URL(request.url).pathname)) { return Response.error(); }  // the server's, not ours
    return askEngine(request, event.clientId, navigate);
  }
}

async function networkOrEngine(event) {
  const request = event.request;
  const copy = request.clone();
  try {
    return await fetch(request);
  } catch (offline) {
    return askEngine(copy, event.clientId, request.mode === "navigate");
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname === "/sw.js") { return; }
  const path = url.pathname;
  if (path.startsWith("/phone/static/") || path.startsWith("/phone/vendor/")) {
    event.respondWith(cacheFirst(request, path.slice("/phone".length) + url.search));
  } else if (path === "/phone" || path.startsWith("/phone/")) {
    event.respondWith(askEngine(request, event.clientId, request.mode === "navigate"));
  } else if (path.startsWith("/static/") || path.startsWith("/vendor/") || path.startsWith("/offline/")) {
    if (path === STATE_URL) { return; }
    event.respondWith(cacheFirst(request));
  } else if (["GET", "HEAD"].includes(request.method)) {
    event.respondWith(networkFirst(event));
  } else if (isSharedMatch(path)) {
    event.respondWith(sendOrKeep(event));
  } else {
    event.respondWith(networkOrEngine(event));
  }
});

// ------------------------------------------------------------------ a shared match's taps, kept

function isSharedMatch(path) { return /^\/m\/[^/]+(\/|$)/.test(path); }

function queueDb() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(QUEUE_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("taps", { keyPath: "id", autoIncrement: true });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function queued(mode, work) {
  const db = await queueDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction("taps", mode);
      const result = work(tx.objectStore("taps"));
      tx.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
      tx.onerror = () => reject(tx.error);
    });
  } finally { db.close(); }
}

const allTaps = () => queued("readonly", (taps) => taps.getAll());
const keepTap = (tap) => queued("readwrite", (taps) => taps.add(tap));
const dropTap = (id) => queued("readwrite", (taps) => taps.delete(id));
const updateTap = (tap) => queued("readwrite", (taps) => taps.put(tap));
const dropAll = () => queued("readwrite", (taps) => taps.clear());

const KEPT_HEADERS = ["content-type", "hx-request", "hx-current-url", "hx-target", "x-csrftoken", "accept",
  "accept-language"];

async function sendOrKeep(event) {
  const request = event.request;
  const copy = request.clone();
  const waiting = (await allTaps()).length;
  if (waiting === 0) {
    try {
      return await fetch(request);
    } catch (offline) { /* kept below */ }
  }
  // Behind taps already kept, or with no connection: kept, in order (a tap never overtakes one).
  const headers = [...copy.headers].filter(([name]) => KEPT_HEADERS.includes(name.toLowerCase()));
  const body = await copy.arrayBuffer();
  const after = new URLSearchParams(new TextDecoder().decode(body)).get("after");
  await keepTap({ url: copy.url, headers, body, after: after === null ? null : Number(after), at: Date.now(),
                  conflict: false });
  if (self.registration.sync) { self.registration.sync.register("muggins-taps").catch(() => {}); }
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (client) { client.postMessage({ type: "taps-kept", count: waiting + 1 }); }
  return new Response(null, { status: 204, headers: { "X-Muggins-Kept": String(waiting + 1) } });
}

function withAfter(body, after) {
  const form = new URLSearchParams(new TextDecoder().decode(body));
  if (!form.has("after")) { return body; }
  form.set("after", String(after));
  return new TextEncoder().encode(form.toString()).buffer;
}

function afterOf(html) {
  const found = /name="after" value="(\d+)"/.exec(html);
  return found ? Number(found[1]) : null;
}

let sending = null;
let sendAgain = false;

// Send the kept taps in order. A tap made on the same board as this phone's own kept tap just
// sent follows it: its "after" becomes the seq that tap reached. A 409 (another phone changed
// the match first) stops the sending: the tap is marked, the page shows the server's fresh
// screen and asks about the rest; nothing more is sent until the player says so.
// Resolves to "sent" (nothing left, or nothing could be), "offline" (no connection: the taps
// wait) or "asking". A call made while a pass is under way (a tap kept meanwhile, a second
// "online") does not ride on that pass, which may have read the taps or met the dead network
// before it: one more pass follows it.
function sendKept() {
  if (sending) {
    sendAgain = true;
    return sending;
  }
  sending = (async () => {
    try {
      let outcome;
      do {
        sendAgain = false;
        outcome = await sendKeptOnce();
      } while (sendAgain && outcome !== "asking");
      return outcome;
    } finally {
      sending = null;
    }
  })();
  return sending;
}

async function sendKeptOnce() {
  let lastAfter = null;
  let reached = null;
  let sent = 0;
  for (const tap of await allTaps()) {
    if (tap.conflict) { return "asking"; }
    const body = lastAfter !== null && tap.after === lastAfter && reached !== null
      ? withAfter(tap.body, reached) : tap.body;
    let response;
    try {
      response = await fetch(tap.url, { method: "POST", headers: tap.headers, body, credentials: "same-origin" });
    } catch (offline) {
      return "offline";  // still no connection: the rest wait for the next try
    }
    const html = await response.text();
    if (response.status === 409) {
      tap.conflict = true;
      tap.freshAfter = afterOf(html);
      await updateTap(tap);
      const remaining = (await allTaps()).length;
      await broadcast({ type: "taps-conflict", url: tap.url, html, remaining, sent });
      return "asking";
    }
    await dropTap(tap.id);
    sent += 1;
    lastAfter = tap.after;
    reached = afterOf(html);
  }
  if (sent) { await broadcast({ type: "taps-sent", count: sent }); }
  return "sent";
}

// A phone says "online" when it has a network, which is not always when a request first gets
// through (a Wi-Fi still being handed an address; each of a browser's workers told in turn): the
// taps are tried again a few times over half a minute before they wait for the next "online".
const ONLINE_RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000];

async function sendKeptWhenOnline() {
  for (const pause of [0, ...ONLINE_RETRY_MS]) {
    if (pause) { await new Promise((resolve) => setTimeout(resolve, pause)); }
    if ((await sendKept()) !== "offline") { return; }
  }
}

// "Send them anyway": the stopped tap goes on top of the fresh board, and the rest follow it.
async function sendAnyway() {
  const [first] = await allTaps();
  if (first && first.conflict) {
    if (first.freshAfter !== null && first.freshAfter !== undefined) {
      first.body = withAfter(first.body, first.freshAfter);
    }
    first.conflict = false;
    await updateTap(first);
  }
  return sendKept();
}

self.addEventListener("sync", (event) => {
  // Still offline: a rejection has the browser try the sync again later.
  if (event.tag === "muggins-taps") {
    event.waitUntil(sendKept().then((outcome) => {
      if (outcome === "offline") { throw new Error("no connection yet"); }
    }));
  }
});

// ------------------------------------------------------------------ messages from pages

self.addEventListener("message", (event) => {
  const data = event.data || {};
  const reply = (message) => event.source && event.source.postMessage(message);
  if (data.type === "hello") {
    event.waitUntil((async () => {
      const state = await readState();
      const taps = await allTaps();
      reply({ type: "state", current: state.current, updated: state.updated, kept: taps.length,
              asking: taps.length > 0 && taps[0].conflict });
      if (state.updated) { state.updated = null; await writeState(state); }
    })());
  } else if (data.type === "online") {
    event.waitUntil(Promise.all([
      sendKeptWhenOnline(),
      checking || (checking = checkForUpdate().catch(() => {}).finally(() => { checking = null; })),
    ]));
  } else if (data.type === "taps-send-anyway") {
    event.waitUntil(sendAnyway());
  } else if (data.type === "taps-drop") {
    event.waitUntil((async () => {
      await dropAll();
      await broadcast({ type: "taps-dropped" });
    })());
  }
});

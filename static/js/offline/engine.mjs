// The engine API in a page (OFFLINE.md, contract 4): engine.request({method, url, headers, body})
// resolves to {status, headers, body: ArrayBuffer}, answered by the phone's own app in a module
// worker (engine.worker.mjs). The worker starts on the first request, or on engine.start().
// A request carries the page's cookies (the lang cookie: the language the player chose) and the
// browser's languages, as a request to the server would; cookies the app sets are kept here, as
// the browser keeps the server's. No words a player reads: pages show their own.

const WORKER = "/static/js/offline/engine.worker.mjs";

let worker = null;
let started = null;
let nextId = 1;
const waiting = new Map();
const listeners = new Set();
const jar = new Map();  // cookies the phone's app set (its session), name -> value

function call(message, transfer) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ ...message, id }, transfer || []);
  });
}

function onMessage(event) {
  const data = event.data;
  if (data.type === "progress") {
    listeners.forEach((listener) => listener({ type: "progress", step: data.step }));
    return;
  }
  const pending = waiting.get(data.id);
  if (!pending) { return; }
  waiting.delete(data.id);
  if (data.type === "error") { pending.reject(new Error(data.error)); } else { pending.resolve(data); }
}

function start() {
  if (!started) {
    worker = new Worker(WORKER, { type: "module" });
    worker.onmessage = onMessage;
    worker.onerror = (event) => {
      waiting.forEach((pending) => pending.reject(new Error(event.message || "worker failed")));
      waiting.clear();
    };
    started = call({ type: "boot" }).then((ready) => {
      listeners.forEach((listener) => listener({ type: "ready", version: ready.version, bootMs: ready.bootMs,
                                                phases: ready.phases }));
      return ready;
    });
  }
  return started;
}

const LANG_KEY = "muggins-lang";

function savedLang() {
  try { return localStorage.getItem(LANG_KEY); } catch (e) { return null; }
}

function cookieHeader(headers) {
  const given = headers.find(([name]) => name.toLowerCase() === "cookie");
  const pairs = new Map();
  document.cookie.split(";").map((c) => c.trim()).filter(Boolean).forEach((c) => {
    const at = c.indexOf("=");
    pairs.set(c.slice(0, at), c.slice(at + 1));
  });
  const lang = savedLang();
  if (lang) { pairs.set("lang", lang); }
  jar.forEach((value, name) => pairs.set(name, value));
  if (given) { return headers; }
  if (pairs.size === 0) { return headers; }
  return [...headers, ["Cookie", [...pairs].map(([n, v]) => n + "=" + v).join("; ")]];
}

function keepCookies(headers) {
  headers.filter(([name]) => name.toLowerCase() === "set-cookie").forEach(([, value]) => {
    const [pair, ...attributes] = value.split(";");
    const at = pair.indexOf("=");
    const name = pair.slice(0, at).trim();
    const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
    if (gone) { jar.delete(name); } else { jar.set(name, pair.slice(at + 1).trim()); }
    // The language the player picks on the phone lasts, as the server's lang cookie does (that
    // one is HttpOnly: the page cannot read it, so the page's own language stands in for it).
    if (name === "lang") {
      try { if (gone) { localStorage.removeItem(LANG_KEY); } else { localStorage.setItem(LANG_KEY, jar.get(name)); } }
      catch (e) { /* storage blocked: the choice lasts for this page */ }
    }
  });
}

function toHeaders(headers) {
  if (!headers) { return []; }
  if (Array.isArray(headers)) { return headers; }
  if (typeof headers.entries === "function") { return [...headers.entries()]; }
  return Object.entries(headers);
}

async function request({ method = "GET", url, headers, body }) {
  await start();
  let list = toHeaders(headers).filter(([name]) => name.toLowerCase() !== "host");
  if (!list.some(([name]) => name.toLowerCase() === "accept-language")) {
    const page = document.documentElement.lang;  // the language the server chose for this page
    list.push(["Accept-Language", [page, ...(navigator.languages || [])].filter(Boolean).join(",")]);
  }
  list = cookieHeader(list);
  let bytes = body;
  if (typeof body === "string") { bytes = new TextEncoder().encode(body).buffer; }
  if (bytes instanceof Uint8Array) { bytes = bytes.slice().buffer; }
  const absolute = new URL(url, location.href).href;
  const answer = await call({ type: "request", method, url: absolute, headers: list, body: bytes || null },
    bytes ? [bytes] : []);
  keepCookies(answer.headers);
  return { status: answer.status, headers: answer.headers, body: answer.body };
}

// One engine a window: a page of the phone's app written over a page of the server's (page.mjs)
// loads this module a second time, from /phone/static/, and a second engine would start Pyodide
// again beside the first. Every copy of the module hands out the first one's.
export const engine = globalThis.mugginsEngine || (globalThis.mugginsEngine = {
  start,
  request,
  get running() { return started !== null; },
  onEvent(listener) { listeners.add(listener); return () => listeners.delete(listener); },
});

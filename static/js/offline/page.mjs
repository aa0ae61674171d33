// Every page's side of working offline (docs/DESIGN.md "Offline"): registers the service worker,
// answers its requests for the phone's own app with this page's engine (engine.mjs), and shows
// the small notes: preparing offline use, ready, updated, taps kept / sent, and the question
// when a kept tap met a match that changed first. The words are the page's, in its language:
// the data-* attributes of #offline-words (templates/base.html); this file holds none.

import { engine } from "./engine.mjs";

// Looked up each time: the shell replaces the whole document (document.write) under this module.
const words = () => document.getElementById("offline-words");
const noteBox = () => document.getElementById("offline-note");
const sw = navigator.serviceWorker;
let booted = false;
let firstVisit = false;
let hideTimer = null;

function word(key, fill) {
  const block = words();
  let text = (block && block.dataset[key]) || "";
  for (const [name, value] of Object.entries(fill || {})) { text = text.split("{" + name + "}").join(value); }
  return text;
}

function localDigits(n) {
  const table = (document.getElementById("ui-words") || { dataset: {} }).dataset.digits || "";
  return String(n).replace(/[0-9]/g, (d) => (table.length === 10 ? table[d] : d));
}

function say(text, { keep = false, buttons = [] } = {}) {
  const note = noteBox();
  if (!note) { return; }
  clearTimeout(hideTimer);
  note.replaceChildren();
  if (!text) { note.hidden = true; return; }
  const line = document.createElement("p");
  line.textContent = text;
  note.append(line);
  if (buttons.length) {
    const row = document.createElement("p");
    row.className = "btn-row";
    for (const [label, action, primary] of buttons) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = primary ? "btn primary" : "btn";
      button.textContent = label;
      button.addEventListener("click", action);
      row.append(button);
    }
    note.append(row);
  }
  note.hidden = false;
  if (!keep && !buttons.length) { hideTimer = setTimeout(() => { note.hidden = true; }, 6000); }
}

function tell(message) {
  if (sw && sw.controller) { sw.controller.postMessage(message); }
}

function askAboutKeptTaps() {
  say(word("conflict"), { buttons: [
    [word("sendAnyway"), () => { say(""); tell({ type: "taps-send-anyway" }); }, true],
    [word("drop"), () => { say(""); tell({ type: "taps-drop" }); }, false],
  ] });
}

function showFreshScreen(url, html) {
  // The server's answer to the stopped tap: its fresh screen, with its "changed first" message.
  const screen = document.getElementById("match-screen");
  const here = new URL(url).pathname.replace(/\/events$/, "");
  if (!screen || !location.pathname.startsWith(here) || !window.htmx) { return; }
  window.htmx.swap(screen, html, { swapStyle: "outerHTML" });
}

async function answerEngine(event, port) {
  const request = event.data.request;
  try {
    if (!booted) { say(word("starting"), { keep: true }); }
    const answer = await engine.request(request);
    port.postMessage(answer, [answer.body]);
  } catch (error) {
    say(word("engineFailed"), { keep: true });
    port.postMessage({ error: String(error && error.message || error) });
  }
}

function onWorkerMessage(event) {
  const data = event.data || {};
  const port = event.ports && event.ports[0];
  switch (data.type) {
    case "engine-ready?":
      if (port) { port.postMessage({ ready: booted }); }
      break;
    case "start-engine":
      engine.start().catch(() => say(word("engineFailed"), { keep: true }));
      break;
    case "engine-request":
      if (port) { answerEngine(event, port); }
      break;
    case "precache":
      if (firstVisit && data.total) {
        say(word("preparing", { percent: localDigits(Math.floor((100 * data.done) / data.total)) }), { keep: true });
      }
      break;
    case "offline-ready":
      if (firstVisit) { say(word("ready")); }
      break;
    case "state":
      if (data.updated) { say(word("updated")); }
      if (data.asking) { askAboutKeptTaps(); } else if (data.kept) { say(word("kept"), { keep: true }); }
      break;
    case "taps-kept":
      say(word("kept"), { keep: true });
      break;
    case "taps-sent":
      say(word("sent"));
      if (document.getElementById("match-screen")) { location.reload(); }
      break;
    case "taps-conflict":
      showFreshScreen(data.url, data.html);
      askAboutKeptTaps();
      break;
    case "taps-dropped":
      say("");
      break;
    default:
      break;
  }
}

// A page of the phone's app written into this document (its engine, and so Pyodide, kept running),
// as a new page would have shown it. The page going is told first ("muggins:leave"), as a page
// left would be; document.open() drops the window's and the document's listeners, so they are
// added again.
function writePage(html) {
  window.dispatchEvent(new Event("muggins:leave"));  // what the page holds (app.js: the screen's wake lock)
  document.open();
  document.write(html);
  document.close();
  listen();
}

// The shell: a page the service worker gave for an address of the phone's own app while no page
// had its engine running. Start the engine, ask it for the real page, and show that instead.
async function runShell() {
  try {
    const answer = await engine.request({ method: "GET", url: location.href, headers: [["Accept", "text/html"]] });
    const location_ = header(answer, "location");
    if (answer.status >= 300 && answer.status < 400 && location_) {
      location.replace(location_);
      return;
    }
    writePage(new TextDecoder().decode(answer.body));
  } catch (error) {
    say(word("engineFailed"), { keep: true });
  }
}

// ------------------------------------------------------------------ moving between pages

// Once this page runs its engine, a tap on a link or a plain form to an address the engine answers
// (the phone's app under /phone/, and the match list while offline: sw.js routes them so) is asked
// of the engine here and its page written into this document, instead of a new page that would
// start Pyodide again: seconds on a phone at every step of an offline match. Redirects are
// followed here; any other answer than a page (a file to save) goes to the browser as before.
const PHONE_LISTS = ["/matches"];  // sw.js's list of the same name: offline, the engine's
const MAX_REDIRECTS = 10;

function inPhoneApp(path) {
  return path === "/phone" || path.startsWith("/phone/");
}

function header(answer, name) {
  const found = answer.headers.find(([key]) => key.toLowerCase() === name);
  return found ? found[1] : null;
}

function engineAnswers(url) {
  if (url.origin !== location.origin) { return false; }
  const path = url.pathname;
  if (inPhoneApp(path)) {
    return !path.startsWith("/phone/static/") && !path.startsWith("/phone/vendor/");
  }
  return !navigator.onLine && PHONE_LISTS.includes(path);
}

async function showFromEngine(url, { method = "GET", body = null, push = true } = {}) {
  if (!booted) { say(word("starting"), { keep: true }); }
  let target = new URL(url, location.href);
  let asked = { method, body };
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers = [["Accept", "text/html"]];
    if (asked.body !== null) { headers.push(["Content-Type", "application/x-www-form-urlencoded"]); }
    let answer;
    try {
      answer = await engine.request({ method: asked.method, url: target.href, headers, body: asked.body });
    } catch (error) {
      if (asked.method === "GET") { location.assign(target.href); } else { say(word("engineFailed"), { keep: true }); }
      return;
    }
    const moved = header(answer, "location");
    if (answer.status >= 300 && answer.status < 400 && moved) {
      target = new URL(moved, target.href);
      if (!engineAnswers(target)) { location.assign(target.href); return; }
      asked = { method: "GET", body: null };
      continue;
    }
    if (!(header(answer, "content-type") || "").startsWith("text/html")) {
      location.assign(target.href);  // not a page: the browser handles it (the service worker asks this engine)
      return;
    }
    // The address first, so that the page is parsed at its own address (document.open keeps it).
    if (push) { history.pushState(null, "", target.href); } else { history.replaceState(null, "", target.href); }
    writePage(new TextDecoder().decode(answer.body));
    const anchor = target.hash && document.getElementById(decodeURIComponent(target.hash.slice(1)));
    if (anchor) { anchor.scrollIntoView(); } else { window.scrollTo(0, 0); }
    return;
  }
  location.assign(target.href);
}

function onClick(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey ||
      event.altKey || !engine.running) { return; }
  const link = event.target instanceof Element && event.target.closest("a[href]");
  if (!link || link.hasAttribute("download") || (link.target && link.target !== "_self")) { return; }
  const url = new URL(link.href, location.href);
  if (!engineAnswers(url)) { return; }
  if (url.pathname === location.pathname && url.search === location.search && url.hash) { return; }
  event.preventDefault();
  showFromEngine(url.href);
}

function onSubmit(event) {
  // htmx's forms are sent by htmx (it prevents the default first); only plain forms come here.
  if (event.defaultPrevented || !engine.running) { return; }
  const form = event.target;
  const submitter = event.submitter;
  // The button's formaction etc. win over the form's own; read as attributes (a field named
  // "action" would shadow form.action).
  const given = (name) => (submitter && submitter.hasAttribute("form" + name) ? submitter.getAttribute("form" + name)
    : form.getAttribute(name));
  const method = (given("method") || "get").toUpperCase();
  const enctype = (given("enctype") || "application/x-www-form-urlencoded").toLowerCase();
  const target = given("target");
  if (!["GET", "POST"].includes(method) || enctype !== "application/x-www-form-urlencoded" ||
      (target && target !== "_self")) { return; }
  const url = new URL(given("action") || location.href, location.href);
  if (!engineAnswers(url)) { return; }
  event.preventDefault();
  const fields = new URLSearchParams(new FormData(form, submitter || undefined));
  if (method === "GET") {
    url.search = fields.toString();
    showFromEngine(url.href);
  } else {
    showFromEngine(url.href, { method, body: fields.toString() });
  }
}

function onPopState() {
  const url = new URL(location.href);
  if (engineAnswers(url)) { showFromEngine(url.href, { push: false }); } else { location.reload(); }
}

function listen() {
  document.addEventListener("click", onClick);
  document.addEventListener("submit", onSubmit);
  window.addEventListener("popstate", onPopState);
  if (registered) { window.addEventListener("online", onOnline); }
}

function onOnline() { tell({ type: "online" }); }

// Once a window: a page of the phone's app written over a page of the server's loads this module
// a second time (from /phone/static/); the first copy goes on serving the window, its engine too.
let registered = false;
if (!globalThis.mugginsOfflinePage) {
  globalThis.mugginsOfflinePage = true;
  setUp();
}

function setUp() {
  engine.onEvent((event) => {
    if (event.type === "ready") {
      booted = true;
      const note = noteBox();
      if (note && note.textContent === word("starting")) { say(""); }
    }
  });

  registered = Boolean(sw && words() && words().dataset.register);
  if (registered) {
    firstVisit = !sw.controller;
    sw.addEventListener("message", onWorkerMessage);
    sw.register("/sw.js", { scope: "/" }).catch(() => { /* no offline use here (plain http: no secure context) */ });
    sw.ready.then(() => {
      tell({ type: "hello" });
      if (navigator.onLine) { tell({ type: "online" }); }
    });
    sw.addEventListener("controllerchange", () => tell({ type: "hello" }));
  }

  listen();
  if (document.body.dataset.shell !== undefined) {
    runShell();
  } else if (inPhoneApp(location.pathname) || !navigator.onLine) {
    engine.start().catch(() => say(word("engineFailed"), { keep: true }));  // a page with no server: be ready for the first tap
  }
}

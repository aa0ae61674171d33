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

engine.onEvent((event) => {
  if (event.type === "ready") {
    booted = true;
    const note = noteBox();
    if (note && note.textContent === word("starting")) { say(""); }
  }
});

// The shell: a page the service worker gave for an address of the phone's own app while no page
// had its engine running. Start the engine, ask it for the real page, and show that instead.
async function runShell() {
  try {
    const answer = await engine.request({ method: "GET", url: location.href, headers: [["Accept", "text/html"]] });
    const location_ = answer.headers.find(([name]) => name.toLowerCase() === "location");
    if (answer.status >= 300 && answer.status < 400 && location_) {
      location.replace(location_[1]);
      return;
    }
    const html = new TextDecoder().decode(answer.body);
    document.open();
    document.write(html);
    document.close();
  } catch (error) {
    say(word("engineFailed"), { keep: true });
  }
}

if (sw && words() && words().dataset.register) {
  firstVisit = !sw.controller;
  sw.addEventListener("message", onWorkerMessage);
  sw.register("/sw.js", { scope: "/" }).catch(() => { /* no offline use here (plain http: no secure context) */ });
  sw.ready.then(() => {
    tell({ type: "hello" });
    if (navigator.onLine) { tell({ type: "online" }); }
  });
  window.addEventListener("online", () => tell({ type: "online" }));
  sw.addEventListener("controllerchange", () => tell({ type: "hello" }));
}

if (document.body.dataset.shell !== undefined) {
  runShell();
} else if (location.pathname === "/phone" || location.pathname.startsWith("/phone/") || !navigator.onLine) {
  engine.start().catch(() => say(word("engineFailed"), { keep: true }));  // a page with no server: be ready for the first tap
}

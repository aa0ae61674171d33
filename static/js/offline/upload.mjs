// Uploading a match kept on this phone to the table's server (issue 25, contract 5).
//
// The phone's screen of a match not yet shared holds #phone-upload (templates/matches/
// _phone_share.html) with everything this module needs in data attributes: the phone's export
// of the match (a /phone/ path, answered by the phone's engine), the server's import route (an
// absolute path outside /phone/, so it goes to the network), the screen's address, and the words
// to show, in the page's language (this file holds none a player reads). One tap:
//   1. GET the phone's export of the match (the same document the server exports);
//   2. POST it to the server's POST /api/groups/import: 201 the first time, 200 when the server
//      already holds exactly this match (a retry after a lost answer); anything else is shown
//      as the server wrote it, and nothing changed anywhere;
//   3. POST the server's links and the seq uploaded to the phone's /m/<id>/uploaded, which keeps
//      them, then open the screen again: it now shares the server's links.
// Offline (navigator.onLine false) the button is disabled and says that uploading needs the
// connection. A failure at any step leaves the button ready for another try.

const STATUS = "#upload-status";

class Failure extends Error {}

function localDigits(n) {
  const block = document.getElementById("ui-words");
  const table = block ? block.dataset.digits || "" : "";
  return String(n).replace(/[0-9]/g, (d) => (table.length === 10 ? table[Number(d)] : d));
}

function failed(section, status) {
  return new Failure((section.dataset.wordFailed || "").split("{status}").join(localDigits(status)));
}

function say(section, text) {
  const line = section.querySelector(STATUS);
  if (line) { line.textContent = text; }
}

function refresh() {
  const section = document.getElementById("phone-upload");
  if (!section || section.dataset.busy === "1") { return; }
  const button = section.querySelector("#upload-button");
  const line = section.querySelector(STATUS);
  const offlineWords = section.dataset.wordOffline || "";
  if (button) { button.disabled = !navigator.onLine; }
  if (!navigator.onLine) { say(section, offlineWords); }
  else if (line && line.textContent === offlineWords) { say(section, ""); }
}

async function errorOf(response) {
  try {
    const body = await response.json();
    return body && typeof body.error === "string" ? body.error : null;
  } catch (e) {
    return null;
  }
}

async function upload(section) {
  const data = section.dataset;
  const form = section.querySelector("#upload-form");
  const button = section.querySelector("#upload-button");
  if (!navigator.onLine) { refresh(); return; }
  data.busy = "1";
  button.disabled = true;
  say(section, data.wordBusy || "");
  try {
    const exported = await fetch(data.uploadExport, { cache: "no-store", credentials: "same-origin" });
    if (!exported.ok) { throw new Failure((await errorOf(exported)) || failed(section, exported.status).message); }
    const text = await exported.text();
    const match = JSON.parse(text).matches[0];
    let answer;
    try {
      answer = await fetch(data.uploadImport, {
        method: "POST", body: text, cache: "no-store", credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
      });
    } catch (e) {
      throw new Failure(data.wordUnreachable || "");
    }
    if (answer.status !== 200 && answer.status !== 201) {
      throw new Failure((await errorOf(answer)) || failed(section, answer.status).message);
    }
    const body = await answer.json();
    const links = body && body.links;
    if (!body || body.kind !== "match" || !Array.isArray(body.matches) || body.matches[0] !== match.id
        || !links || typeof links.scorer !== "string" || typeof links.viewer !== "string") {
      throw failed(section, answer.status);
    }
    form.elements.scorer.value = links.scorer;
    form.elements.viewer.value = links.viewer;
    form.elements.seq.value = String(match.events.length);
    const kept = await fetch(form.action, {
      method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin",
    });
    if (!kept.ok) { throw failed(section, kept.status); }
    window.location.assign(data.uploadScreen);
  } catch (e) {
    say(section, e instanceof Failure ? e.message : failed(section, 0).message);
  } finally {
    delete data.busy;
    button.disabled = !navigator.onLine;
  }
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("#upload-button");
  const section = button && button.closest("#phone-upload");
  if (section && section.dataset.busy !== "1") { upload(section); }
});
window.addEventListener("online", refresh);
window.addEventListener("offline", refresh);
// A tap on the score screen swaps it whole (htmx): the new control starts in the right state.
document.addEventListener("htmx:afterSettle", refresh);
refresh();

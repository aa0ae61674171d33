// "Use the camera" (templates/photo/_camera.html): read the cards live from the phone's camera.
// Frames go to /api/recognise/frame two at a time (the next is sent while the last is read), a
// few a second; the cards found are outlined over the video; once three answers running name the
// same cards, the camera stops and the last frame is handed to the photo form's file input, as if
// the player had chosen it as a photo, so the confirm screen is the photo flow's own. Loaded as a
// module; every word comes from the page.

const FRAME_LONG_SIDE = 1280;  // frames' long side in pixels: the finest size the server reads a photo at
const FRAME_QUALITY = 0.8;
const MIN_GAP_MS = 250;  // at most four frames a second, whatever the server's speed
const IN_FLIGHT = 2;  // frames being read at once: a server reads two photos at once (vision.io's
                      // DECODE_WORKERS), one on each core of a 2-core laptop
const SAME_READINGS = 3;  // answers running that must name the same cards
const RETRY_MS = 1000;  // wait after a frame that could not be sent
const SVG = "http://www.w3.org/2000/svg";

let session = null;  // the open camera: {stream, live}

function el(id) { return document.getElementById(id); }

function words(holder, name, values) {
  let text = (holder && holder.getAttribute("data-" + name)) || "";
  for (const [key, value] of Object.entries(values || {})) { text = text.split("%(" + key + ")s").join(value); }
  return text;
}

function say(id, text) {
  const box = el(id);
  if (!box) { return; }
  box.textContent = text;
  box.hidden = !text;
}

function reveal() {
  const root = el("camera");
  if (root && root.hidden && navigator.mediaDevices && navigator.mediaDevices.getUserMedia
      && window.DataTransfer && el("photo-file")) {
    root.hidden = false;
  }
}

function stop() {
  if (!session) { return; }
  session.live = false;
  session.stream.getTracks().forEach((track) => track.stop());
  session = null;
  const video = el("camera-video");
  if (video) { video.srcObject = null; }
  const view = el("camera-view");
  if (view) { view.hidden = true; }
  const open = el("camera-open");
  if (open) { open.hidden = false; }
  const marks = el("camera-marks");
  if (marks) { marks.replaceChildren(); }
  say("camera-status", "");
}

function refusal(error) {
  const root = el("camera");
  const name = error && error.name;
  if (name === "NotAllowedError" || name === "SecurityError") { return words(root, "denied"); }
  if (name === "NotFoundError" || name === "OverconstrainedError" || name === "NotReadableError") {
    return words(root, "no-camera");
  }
  return words(root, "failed");
}

async function open() {
  say("camera-error", "");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: {facingMode: "environment", width: {ideal: 1280}, height: {ideal: 960}},
    });
  } catch (error) {
    say("camera-error", refusal(error));
    return;
  }
  const video = el("camera-video");
  if (!video) { stream.getTracks().forEach((track) => track.stop()); return; }
  stop();
  session = {stream, live: true};
  video.srcObject = stream;
  el("camera-view").hidden = false;
  el("camera-open").hidden = true;
  say("camera-status", words(el("camera-status"), "looking"));
  try {
    await video.play();
  } catch (error) {
    stop();
    say("camera-error", words(el("camera"), "failed"));
    return;
  }
  read(session, video);
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function grab(video) {
  const scale = Math.min(1, FRAME_LONG_SIDE / Math.max(video.videoWidth, video.videoHeight));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(
    (blob) => resolve({blob, width: canvas.width, height: canvas.height}), "image/jpeg", FRAME_QUALITY));
}

function outline(frame, cards) {
  const marks = el("camera-marks");
  if (!marks) { return; }
  marks.setAttribute("viewBox", `0 0 ${frame.width} ${frame.height}`);
  marks.setAttribute("font-size", String(Math.round(frame.width * 0.045)));
  marks.replaceChildren(...cards.map((card) => {
    const group = document.createElementNS(SVG, "g");
    group.setAttribute("class", "mark");
    const polygon = document.createElementNS(SVG, "polygon");
    polygon.setAttribute("points", card.corners.map(([x, y]) => `${x},${y}`).join(" "));
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(card.corners.reduce((sum, [x]) => sum + x, 0) / 4));
    label.setAttribute("y", String(card.corners.reduce((sum, [, y]) => sum + y, 0) / 4));
    label.setAttribute("text-anchor", "middle");
    label.setAttribute("dominant-baseline", "central");
    label.textContent = card.card;  // card notation, the same in every language
    group.append(polygon, label);
    return group;
  }));
}

function handOver(blob) {
  const input = el("photo-file");
  if (!input) { return; }
  const chosen = new DataTransfer();
  chosen.items.add(new File([blob], "camera.jpg", {type: "image/jpeg"}));
  input.files = chosen.files;
  // photo.js sends a chosen photo on "change": the reading goes the way of any photo.
  input.dispatchEvent(new Event("change", {bubbles: true}));
}

async function read(current, video) {
  const root = el("camera");
  const url = root.getAttribute("data-frame-url");
  const expect = root.getAttribute("data-expect");  // the cards the page wants: read faster when all lie apart
  let last = "";  // the cards the last answer used named
  let same = 0;  // answers running that named them
  let sent = 0;  // frames sent: each answer knows its frame's number
  let used = 0;  // the newest frame whose answer was used; an older answer that comes later is stale
  let flying = 0;
  let pause = 0;  // no frame before this time (after one that could not be sent)
  let wake = null;  // resolves the wait for a free slot

  function landed() {
    flying -= 1;
    if (wake) { const resolve = wake; wake = null; resolve(); }
  }

  function refused(message) {
    say("camera-error", message);
    pause = performance.now() + RETRY_MS;
  }

  function use(number, frame, answer) {
    if (!current.live || number < used) { return; }
    used = number;
    say("camera-error", "");
    const cards = Array.isArray(answer.cards) ? answer.cards : [];
    outline(frame, cards);
    const key = cards.map((card) => card.card).sort().join(" ");
    same = key && key === last ? same + 1 : (key ? 1 : 0);
    last = key;
    if (same >= SAME_READINGS) {
      stop();
      say("camera-status", words(el("camera-status"), "taken"));
      handOver(frame.blob);
    }
  }

  async function send(number, frame) {
    const body = new FormData();
    body.append("image", frame.blob, "frame.jpg");
    if (expect) { body.append("expect", expect); }
    try {
      const response = await fetch(url, {method: "POST", body});
      const answer = await response.json().catch(() => ({}));
      if (!current.live) { return; }
      if (response.ok) {
        use(number, frame, answer);
      } else if (response.status === 429 || response.status === 413) {
        stop();
        say("camera-error", answer.error || words(root, "not-sent", {status: String(response.status)}));
      } else {
        refused(words(root, "not-sent", {status: String(response.status)}));
      }
    } catch (error) {
      if (current.live) { refused(words(root, "not-sent", {status: words(root, "no-connection")})); }
    } finally {
      landed();
    }
  }

  let previous = -MIN_GAP_MS;
  while (current.live) {
    if (!video.isConnected) { stop(); return; }  // the panel was swapped away
    if (flying >= IN_FLIGHT) { await new Promise((resolve) => { wake = resolve; }); continue; }
    const wait = Math.max(pause, previous + MIN_GAP_MS) - performance.now();
    if (wait > 0) { await sleep(wait); continue; }
    if (video.readyState < 2 || !video.videoWidth) { await sleep(100); continue; }
    previous = performance.now();
    const frame = await grab(video);
    if (!current.live) { return; }
    if (!frame.blob) { pause = performance.now() + RETRY_MS; continue; }
    sent += 1;
    flying += 1;
    send(sent, frame);
  }
}

document.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target : null;
  if (target && target.closest("#camera-open")) { open(); }
  if (target && target.closest("#camera-close")) { stop(); }
});
document.addEventListener("htmx:load", reveal);
document.addEventListener("htmx:beforeSwap", (event) => {
  // The count panel is about to be replaced (a card tapped, the photo sent): let the camera go.
  const view = el("camera-view");
  if (session && view && event.detail.target && event.detail.target.contains(view)) { stop(); }
});
reveal();

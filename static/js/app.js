// Muggins enhancements. Every page works without this file; it adds the theme switch, sharing,
// the screen wake lock during a match, and a notice when the server cannot be reached.
// Its words come from the page, in the page's language: the theme button's data-label-* and the
// data-* of the #ui-words element that base.html renders; this file holds none a player reads.
(function () {
  "use strict";

  var THEMES = ["auto", "light", "dark"];

  var words = null;
  function word(key, fill) {
    if (words === null) {
      var block = document.getElementById("ui-words");
      words = block ? block.dataset : {};
    }
    var text = words[key] || "";
    Object.keys(fill || {}).forEach(function (name) { text = text.split("{" + name + "}").join(fill[name]); });
    return text;
  }
  // A number in the page language's digits (Marathi writes ०१२...).
  function localDigits(n) {
    var table = word("digits");
    return String(n).replace(/[0-9]/g, function (d) { return table.length === 10 ? table[d] : d; });
  }

  function setupThemeToggle() {
    var button = document.getElementById("theme-toggle");
    if (!button) { return; }
    var root = document.documentElement;
    function show(theme) {
      root.setAttribute("data-theme", theme);
      button.setAttribute("aria-label", button.getAttribute("data-label-" + theme) || "");
    }
    show(root.getAttribute("data-theme") || "auto");
    button.hidden = false;
    button.addEventListener("click", function () {
      var next = THEMES[(THEMES.indexOf(root.getAttribute("data-theme")) + 1) % THEMES.length];
      show(next);
      try {
        if (next === "auto") { window.localStorage.removeItem("muggins-theme"); }
        else { window.localStorage.setItem("muggins-theme", next); }
      } catch (e) { /* storage blocked: the choice lasts for this page only */ }
    });
  }

  // Links marked data-share-url open the phone's share sheet, or copy the address.
  function setupSharing() {
    document.addEventListener("click", function (event) {
      var link = event.target.closest("[data-share-url]");
      if (!link) { return; }
      var url = new URL(link.getAttribute("data-share-url"), window.location.href).href;
      if (navigator.share) {
        event.preventDefault();
        navigator.share({ title: link.getAttribute("data-share-title") || document.title, url: url })
          .catch(function () { /* the player closed the share sheet */ });
      } else if (navigator.clipboard && window.isSecureContext) {
        event.preventDefault();
        navigator.clipboard.writeText(url).then(function () { flag(link, word("copied")); },
          function () { window.location.href = url; });
      }
    });
  }

  function flag(element, text) {
    var note = document.createElement("span");
    note.className = "copied";
    note.setAttribute("role", "status");
    note.textContent = text;
    element.insertAdjacentElement("afterend", note);
    window.setTimeout(function () { note.remove(); }, 2500);
  }

  // Keep the screen on while a match goes on (the board is marked data-wake-lock until it ends).
  // The Screen Wake Lock API needs a secure context; the table's laptop serves plain http, where
  // nosleep.js (served by the app, no CDN) plays a tiny looping video instead, which a browser
  // only allows from a tap: it starts at the player's next tap. Both stop when the match ends.
  var wakeLock = null;
  var noSleep = null;
  function wantsWake() { return document.querySelector("[data-wake-lock]") !== null; }
  function nativeWake() { return window.isSecureContext && "wakeLock" in navigator; }
  function syncWake() {
    var wanted = wantsWake() && document.visibilityState === "visible";
    if (nativeWake()) {
      if (wanted && !wakeLock) {
        wakeLock = "pending";
        navigator.wakeLock.request("screen").then(function (lock) {
          wakeLock = lock;
          lock.addEventListener("release", function () { if (wakeLock === lock) { wakeLock = null; } });
          if (!wantsWake()) { releaseWake(); }
        }, function () { wakeLock = null; /* refused (battery saver): the screen may sleep */ });
      } else if (!wantsWake()) {
        releaseWake();
      }
    } else if (noSleep && noSleep.isEnabled && !wantsWake()) {
      noSleep.disable();
    }
    document.documentElement.setAttribute("data-awake", wakeOn() ? "on" : "off");
  }
  function releaseWake() {
    var lock = wakeLock;
    wakeLock = null;
    if (lock && lock !== "pending") { lock.release().catch(function () { /* already gone */ }); }
  }
  function wakeOn() {
    return nativeWake() ? wakeLock !== null : Boolean(noSleep && noSleep.isEnabled);
  }
  function wakeFromTap() {
    if (nativeWake() || !wantsWake() || !window.NoSleep) { return; }
    if (!noSleep) { noSleep = new window.NoSleep(); }
    if (!noSleep.isEnabled) {
      noSleep.enable().then(syncWake, function () { /* autoplay refused: the next tap tries again */ });
    }
  }
  function setupWakeLock() {
    syncWake();
    document.addEventListener("visibilitychange", syncWake);
    document.addEventListener("click", wakeFromTap, true);
    // The phone's engine writes the next page into this window (offline/page.mjs): this page's
    // lock goes with it, and the next page asks for its own if it wants one.
    window.addEventListener("muggins:leave", function () {
      releaseWake();
      if (noSleep && noSleep.isEnabled) { noSleep.disable(); }
    });
  }

  // A plain notice when a request fails, cleared by the next one that succeeds.
  function setupNetworkNotice() {
    var box = document.getElementById("net-status");
    if (!box) { return; }
    function say(text) { box.textContent = text; box.hidden = !text; }
    document.body.addEventListener("htmx:sendError", function () {
      say(word("offline"));
    });
    document.body.addEventListener("htmx:responseError", function (event) {
      var status = event.detail.xhr.status;
      if (status === 403) { say(word("watchOnly")); }
      else if (status === 404) { say(word("gone")); }
      else { say(word("failed", { status: localDigits(status) })); }
    });
    document.body.addEventListener("htmx:afterRequest", function (event) {
      if (event.detail.successful) { say(""); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setupThemeToggle();
    setupSharing();
    setupWakeLock();
    setupNetworkNotice();
    if (window.htmx) { window.htmx.onLoad(syncWake); }
  });
})();

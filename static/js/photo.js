// "Take photo": send the photo as soon as it is chosen, say when it is too big before sending it,
// and show the progress state. Without this file the form still works: choose a photo, then
// tap "Read the cards".
(function () {
  "use strict";

  // The words come from the page (data- attributes on #photo-error, in the page's language), with
  // %(name)s placeholders this script fills.
  function words(name, values) {
    var box = document.getElementById("photo-error");
    var text = (box && box.getAttribute("data-" + name)) || "";
    Object.keys(values || {}).forEach(function (key) { text = text.split("%(" + key + ")s").join(values[key]); });
    return text;
  }

  function megabytes(bytes) {
    var lang = document.documentElement.lang || undefined;
    return words("megabytes", {num: Math.round(bytes / (1024 * 1024)).toLocaleString(lang)});
  }

  function say(text) {
    var box = document.getElementById("photo-error");
    if (!box) { return; }
    box.textContent = text;
    box.hidden = !text;
  }

  function busy(on) {
    var progress = document.getElementById("photo-progress");
    if (progress) { progress.classList.toggle("busy", on); }
  }

  // The no-JavaScript "Read the cards" button is not needed: choosing the photo sends it.
  function hideSubmitButtons(root) {
    var buttons = (root || document).querySelectorAll("[data-photo-submit]");
    for (var i = 0; i < buttons.length; i++) { buttons[i].hidden = true; }
  }

  function onChosen(event) {
    var input = event.target;
    if (!input.classList || !input.classList.contains("photo-file") || !input.form) { return; }
    var file = input.files && input.files[0];
    if (!file) { return; }
    var limit = parseInt(input.form.getAttribute("data-max-bytes") || "0", 10);
    if (limit && file.size > limit) {
      say(words("too-large", {size: megabytes(file.size), limit: megabytes(limit)}));
      input.value = "";
      return;
    }
    say("");
    input.form.requestSubmit();
  }

  function isPhotoForm(element) { return element && element.id === "photo-form"; }

  document.addEventListener("change", onChosen);
  document.addEventListener("submit", function (event) {
    if (isPhotoForm(event.target)) { busy(true); }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!isPhotoForm(event.detail.elt)) { return; }
    busy(false);
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (status === 413) {
      say(words("too-large-for-server"));
    } else if (!event.detail.successful && status !== 422) {
      say(words("not-sent", {status: status ? String(status) : words("no-connection")}));
    }
    var input = document.getElementById("photo-file");
    if (input && !event.detail.successful) { input.value = ""; }  // the same photo may be chosen again
  });

  document.addEventListener("DOMContentLoaded", function () {
    hideSubmitButtons(document);
    if (window.htmx) { window.htmx.onLoad(hideSubmitButtons); }
  });
})();

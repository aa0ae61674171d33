// "Take photo": shrink the photo in the browser and send it as soon as it is chosen, say when it is
// too big before sending it, and show the progress state. Without this file the form still works:
// choose a photo, then tap "Read the cards" (the original goes up, and the server shrinks it).
(function () {
  "use strict";

  // A phone's 12 MP photo (3 to 6 MB) goes up as a JPEG of about 1600 px on the long side, a few
  // hundred kB: the server decodes a photo at this size anyway, so the answer is the same and comes
  // sooner on the table's Wi-Fi. Quality 0.92, not 0.85: a tight fan's small indices lost 11 of
  // 255 cards at 0.85 (bidly's deals), 2 at 0.92, for about 80 kB more. tests/test_photo_shrink.py
  // emulates this with Pillow, reading these two numbers from this file.
  var LONG_SIDE = 1600;
  var JPEG_QUALITY = 0.92;

  // The photo to send: shrunk, with its EXIF orientation applied to the pixels, or the original
  // when it is small already, when shrinking saves nothing, or when this browser cannot decode
  // it (HEIC on most browsers: the server decodes it).
  function shrunk(file) {
    if (!window.createImageBitmap || !window.DataTransfer) { return Promise.resolve(file); }
    return window.createImageBitmap(file, {imageOrientation: "from-image"}).then(function (bitmap) {
      var scale = LONG_SIDE / Math.max(bitmap.width, bitmap.height);
      if (scale >= 1) { bitmap.close(); return file; }
      var canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(bitmap.width * scale));
      canvas.height = Math.max(1, Math.round(bitmap.height * scale));
      var context = canvas.getContext("2d");
      context.imageSmoothingQuality = "high";
      context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      bitmap.close();
      return new Promise(function (resolve) {
        canvas.toBlob(function (blob) {
          if (!blob || blob.size >= file.size) { resolve(file); return; }
          var name = (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg";
          resolve(new File([blob], name, {type: "image/jpeg"}));
        }, "image/jpeg", JPEG_QUALITY);
      });
    }).catch(function () { return file; });
  }

  // The shrunk file this script put in the input: a browser that calls that a change must not
  // send it a second time.
  var placed = null;

  // Put `file` in the input in place of the chosen one (the form sends the input's files).
  function replaceFile(input, file) {
    if (file === input.files[0]) { return; }
    try {
      var transfer = new DataTransfer();
      transfer.items.add(file);
      placed = file;
      input.files = transfer.files;
    } catch (e) { /* the original stays and goes up */ }
  }

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
    if (!file || file === placed) { return; }
    var form = input.form;
    say("");
    busy(true);
    shrunk(file).then(function (sent) {
      var limit = parseInt(form.getAttribute("data-max-bytes") || "0", 10);
      if (limit && sent.size > limit) {
        busy(false);
        say(words("too-large", {size: megabytes(sent.size), limit: megabytes(limit)}));
        input.value = "";
        return;
      }
      replaceFile(input, sent);
      form.requestSubmit();
    });
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

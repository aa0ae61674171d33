// Applies the saved colour theme before the page paints (loaded in <head>, not deferred).
(function () {
  "use strict";
  var saved = null;
  try { saved = window.localStorage.getItem("muggins-theme"); } catch (e) { /* storage blocked */ }
  if (saved === "light" || saved === "dark") {
    document.documentElement.setAttribute("data-theme", saved);
  }
})();

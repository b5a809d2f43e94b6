/* fairval's boot watchdog, run before Streamlit's own scripts (server/boot.py puts it into index.html).
   A launch sends hundreds of browsers at once: one JS chunk lost on the way (a dropped connection,
   a worker killed mid-transfer) leaves Streamlit's module graph unrun and the page blank for good.
   A rater cannot know to reload, so the page does it itself: at once when a script or a lazily
   loaded chunk fails (a failed module preload is only a hint: the import fetches the file again), and
   when the page has loaded but drawn nothing for BLANK_MS. At most MAX reloads in WINDOW_MS, each
   after a growing, jittered pause so a crowd does not come back in step; after that the page says in
   words what to do. */
(function () {
  "use strict";
  var KEY = "fairval-boot-reloads", MAX = 4, WINDOW_MS = 600000, BLANK_MS = 30000;
  var scheduled = false;

  function recent() {
    try {
      var now = Date.now();
      return JSON.parse(sessionStorage.getItem(KEY) || "[]").filter(function (t) { return now - t < WINDOW_MS; });
    } catch (e) { return []; }
  }

  function drawn() {
    var root = document.getElementById("root");
    return !!(root && root.children.length);
  }

  function sayIt() {
    if (drawn() || !document.body) return;   // Streamlit is up: it shows its own error for one element
    var note = document.createElement("p");
    note.setAttribute("data-fairval-boot", "failed");
    note.style.cssText = "font: 18px sans-serif; margin: 3em auto; max-width: 36em; padding: 0 1em;";
    note.textContent = "This page did not load completely. Please reload it in a minute; " +
      "any answers you submitted are saved.";
    document.body.appendChild(note);
  }

  function giveUp() {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", sayIt);
    else sayIt();
    return false;
  }

  // true when the page will reload; false when it has reloaded MAX times lately and says so instead
  function reload(why) {
    if (scheduled) return true;
    var times = recent();
    if (times.length >= MAX) return giveUp();
    scheduled = true;
    times.push(Date.now());
    try {
      sessionStorage.setItem(KEY, JSON.stringify(times));
    } catch (e) {   // nowhere to count reloads: reload once, never from a page that is itself a reload
      var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
      if (nav && nav.type === "reload") { scheduled = false; return giveUp(); }
    }
    var pause = 500 * Math.pow(2, times.length - 1) * (0.5 + Math.random());
    if (window.console) console.warn("fairval: reloading the page in " + Math.round(pause) + " ms: " + why);
    setTimeout(function () { location.reload(); }, pause);
    return true;
  }

  // a <script> whose module graph failed to load: `error` does not bubble, so listen in the capture phase
  window.addEventListener("error", function (event) {
    var el = event.target;
    if (!el || el === window || !el.tagName) return;
    if (el.tagName.toLowerCase() === "script") reload("could not load " + el.src);
  }, true);

  // a chunk Streamlit imports when it first needs it (Vite's documented event for this)
  window.addEventListener("vite:preloadError", function (event) {
    // prevented only when reloading: otherwise Streamlit shows the element's error itself
    if (reload("could not load a chunk: " + (event.payload && event.payload.message))) event.preventDefault();
  });

  // anything else that leaves the page blank once everything it asked for has arrived or failed
  window.addEventListener("load", function () {
    setTimeout(function () { if (!drawn()) reload("nothing drawn " + BLANK_MS + " ms after load"); }, BLANK_MS);
  });

  // Streamlit asks for its icon font (366 KiB) on every page load, though a rater's consent screen draws
  // no icon: a third of a participant's first page (bench/run.py pages). Left to CSS, the browser fetches
  // it when a screen first draws an icon (an expander's arrow), and never on screens without one.
  try {
    var fonts = document.fonts, load = fonts && fonts.load;
    if (load) fonts.load = function (font) {
      if (String(font).indexOf("Material Symbols") >= 0) return Promise.resolve([]);
      return load.apply(fonts, arguments);
    };
  } catch (e) { /* an old browser: it fetches the font as before */ }
})();

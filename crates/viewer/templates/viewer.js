// Live records: polls the run file's size every 2 seconds and reloads the page when it grows
// (the only script of the viewer; without it, the page refreshes itself every 5 seconds).
(function () {
  "use strict";
  var counts = document.getElementById("counts");
  if (!counts) { return; }
  var url = counts.getAttribute("data-stamp");
  var seen = null;
  function poll() {
    fetch(url, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (size) {
      if (seen === null) { seen = size; } else if (size !== seen) { window.location.reload(); return; }
      window.setTimeout(poll, 2000);
    }).catch(function () { window.setTimeout(poll, 5000); });
  }
  poll();
})();

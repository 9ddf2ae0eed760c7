// agentsnap report: state filters for the summary table and the sections.
(function () {
  "use strict";
  var doc = document;
  var hidden = {};

  function apply() {
    var rows = doc.querySelectorAll("[data-state]");
    for (var i = 0; i < rows.length; i++) {
      var el = rows[i];
      if (el.classList.contains("filter")) continue;
      el.hidden = !!hidden[el.getAttribute("data-state")];
    }
    var buttons = doc.querySelectorAll("button.filter");
    for (var j = 0; j < buttons.length; j++) {
      var state = buttons[j].getAttribute("data-state");
      buttons[j].setAttribute("aria-pressed", hidden[state] ? "false" : "true");
    }
  }

  var buttons = doc.querySelectorAll("button.filter");
  for (var k = 0; k < buttons.length; k++) {
    buttons[k].addEventListener("click", function (event) {
      var state = event.currentTarget.getAttribute("data-state");
      hidden[state] = !hidden[state];
      apply();
    });
  }

  apply();
  doc.body.setAttribute("data-js", "ready");
})();

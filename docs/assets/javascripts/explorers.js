// Figures the reader moves (hooks/explorers.py). Every frame was computed by the library when the site was
// built; this script only picks the frame that matches the controls and shows it. No mathematics here.
(function () {
  "use strict";

  function setUp(figure) {
    var data = JSON.parse(figure.querySelector("script.explorer__data").textContent);
    var form = figure.querySelector("form.explorer__controls");
    var frame = figure.querySelector(".explorer__frame");
    var shown = null;

    // The index of a control's value: the slider's position, the box's state, the option chosen.
    function indexOf(control, input) {
      if (control.kind === "range") return Number(input.value);
      if (control.kind === "toggle") return input.checked ? 1 : 0;
      return input.selectedIndex;
    }

    function update() {
      var key = data.controls.map(function (control) {
        var input = form.elements[control.name];
        var index = indexOf(control, input);
        var words = control.texts[index];
        if (control.kind === "range") {
          input.setAttribute("aria-valuetext", words);
          var readout = form.querySelector('output[for="' + input.id + '"]');
          if (readout) readout.textContent = words;
        }
        return control.values[index];
      }).join("|");
      var index = data.keys[key];
      if (index !== undefined && index !== shown) {
        frame.innerHTML = data.frames[index];
        shown = index;
      }
      figure.setAttribute("data-frame", key);
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;  // the controls appear only where this script runs
    update();
  }

  document.querySelectorAll("figure.explorer").forEach(setUp);
})();

// ldhub default theme: progressive enhancement of the documentation pages. Every page reads without it; this
// adds a filter over the term labels and buttons that open or close the hierarchy trees. It is served as a file
// (never inline) so that a strict Content-Security-Policy (script-src 'self') holds.
(function () {
  "use strict";
  function filterTerms(doc, slot) {
    var terms = doc.querySelectorAll("article.term[data-filter]");
    if (!terms.length) { return; }
    var box = document.createElement("div");
    box.className = "filter";
    var label = document.createElement("label");
    label.htmlFor = "filter";
    label.textContent = "Filter terms ";
    var input = document.createElement("input");
    input.type = "search";
    input.id = "filter";
    input.autocomplete = "off";
    input.setAttribute("aria-describedby", "filter-count");
    var count = document.createElement("span");
    count.id = "filter-count";
    count.className = "muted";
    count.setAttribute("aria-live", "polite");
    box.appendChild(label);
    box.appendChild(input);
    box.appendChild(document.createTextNode(" "));
    box.appendChild(count);
    slot.appendChild(box);
    var timer = 0;
    function apply() {
      var q = input.value.trim().toLowerCase();
      var shown = 0;
      for (var i = 0; i < terms.length; i++) {
        var hit = !q || terms[i].getAttribute("data-filter").indexOf(q) >= 0;
        terms[i].hidden = !hit;
        if (hit) { shown++; }
      }
      var sections = doc.querySelectorAll("section.terms");
      for (var j = 0; j < sections.length; j++) {
        sections[j].hidden = !!q && !sections[j].querySelector("article.term:not([hidden])");
      }
      count.textContent = q ? shown + " of " + terms.length + " terms" : "";
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(apply, terms.length > 2000 ? 150 : 0);
    });
  }
  function treeButtons(details) {
    var trees = details.querySelectorAll("details");
    if (!trees.length) { return; }
    var bar = document.createElement("p");
    bar.className = "treebar";
    [["Expand all", true], ["Collapse all", false]].forEach(function (b) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b[0];
      btn.addEventListener("click", function () {
        details.open = true;
        for (var i = 0; i < trees.length; i++) { trees[i].open = b[1]; }
      });
      bar.appendChild(btn);
      bar.appendChild(document.createTextNode(" "));
    });
    details.insertBefore(bar, details.children[1] || null);
  }
  function init() {
    var docs = document.querySelectorAll("section.doc");
    for (var i = 0; i < docs.length; i++) {
      var slot = docs[i].querySelector(".filter-slot");
      if (slot) { filterTerms(docs[i], slot); }
    }
    var hier = document.querySelectorAll("details.hierarchy");
    for (var k = 0; k < hier.length; k++) { treeButtons(hier[k]); }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

// ldhub default theme: progressive enhancement of the documentation pages. Every page reads without it; this
// adds a filter over the term labels (over every term of a large publication, from its labels index) and buttons
// that open or close the hierarchy trees. It is served as a file (never inline) so that a strict
// Content-Security-Policy (script-src 'self') holds.
(function () {
  "use strict";
  // The labels index (data-index on the documentation section: a page that leaves terms out) lists every term of
  // the publication with the page of its section's listing and its anchor; it is loaded once, on first use of the
  // filter, and searched here, so that the filter finds any term without another request.
  var MAX_HITS = 50;
  function loadIndex(url, done) {
    var xhr = new XMLHttpRequest();
    xhr.open("GET", url);
    xhr.responseType = "json";
    xhr.onload = function () {
      var ix = xhr.response;
      if (xhr.status !== 200 || !ix || ix.v !== 1 || !ix.terms || !ix.sections) { done(null); return; }
      for (var i = 0; i < ix.terms.length; i++) {
        var t = ix.terms[i];
        t.push((t[0] + " " + t[1]).toLowerCase());
      }
      done(ix);
    };
    xhr.onerror = function () { done(null); };
    xhr.send();
  }
  function anchorOf(t) {
    if (t.length > 5) { return t[4]; }
    var n = t[1];
    return n.slice(Math.max(n.lastIndexOf("#"), n.lastIndexOf("/"), n.lastIndexOf(":")) + 1);
  }
  function filterTerms(doc, slot) {
    var terms = doc.querySelectorAll("article.term[data-filter]");
    var indexURL = doc.getAttribute("data-index");
    if (!terms.length && !indexURL) { return; }
    var box = document.createElement("div");
    box.className = "filter";
    var label = document.createElement("label");
    label.htmlFor = "filter";
    label.textContent = indexURL ? "Filter all terms " : "Filter terms ";
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
    var hits = null;
    if (indexURL) {
      hits = document.createElement("ol");
      hits.className = "filter-hits";
      hits.setAttribute("aria-label", "Matching terms of the publication");
      hits.hidden = true;
      box.appendChild(hits);
    }
    slot.appendChild(box);
    var index = null, loading = false, failed = false;
    function ensureIndex() {
      if (!indexURL || index || loading || failed) { return; }
      loading = true;
      loadIndex(indexURL, function (ix) {
        loading = false;
        if (ix) { index = ix; } else { failed = true; }
        apply();
      });
    }
    var timer = 0;
    function searchIndex(q) {
      while (hits.firstChild) { hits.removeChild(hits.firstChild); }
      var found = 0;
      for (var i = 0; i < index.terms.length; i++) {
        var t = index.terms[i];
        if (t[t.length - 1].indexOf(q) < 0) { continue; }
        found++;
        if (found > MAX_HITS) { continue; }
        var s = index.sections[t[2]];
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = s.href + t[3] + "#" + anchorOf(t);
        a.textContent = t[0];
        var code = document.createElement("code");
        code.className = "name";
        code.textContent = t[1];
        var where = document.createElement("span");
        where.className = "muted";
        where.textContent = " " + s.title + ", page " + t[3];
        li.appendChild(a);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(code);
        li.appendChild(where);
        hits.appendChild(li);
      }
      hits.hidden = found === 0;
      return found;
    }
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
      var here = shown + " of " + terms.length + " terms on this page";
      if (!indexURL) {
        count.textContent = q ? shown + " of " + terms.length + " terms" : "";
        return;
      }
      if (!q) {
        hits.hidden = true;
        count.textContent = "";
        return;
      }
      if (index) {
        var found = searchIndex(q);
        count.textContent = found + " of " + index.count + " terms of the publication match" +
          (found > MAX_HITS ? " (the first " + MAX_HITS + " are listed)" : "") + "; " + here + ".";
      } else if (failed) {
        count.textContent = "The list of all terms could not be loaded; " + here + ".";
      } else {
        count.textContent = "Loading the list of all terms…; " + here + ".";
      }
    }
    input.addEventListener("focus", ensureIndex);
    input.addEventListener("input", function () {
      ensureIndex();
      clearTimeout(timer);
      timer = setTimeout(apply, terms.length > 2000 || index ? 150 : 0);
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

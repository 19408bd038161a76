package html_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/html/htmltest"
)

// printExpect is text each page type of docSite must still show on paper: its definitions, labels or results.
var printExpect = map[string]string{
	"hub":         "open",
	"repository":  "foaf",
	"foaf":        "A person.",
	"org":         "Represents a collection of people organized together",
	"org-fr":      "Représente un groupe de personnes organisées",
	"shacl":       "A node shape is a shape that specifies constraint",
	"version":     "Thing",
	"resource":    "anonymous part",
	"query":       "anonymous part",
	"query-graph": "anonymous part",
}

// printCheck runs in a page under print media laid out at the printable width: which of the parts that must not
// print are rendered, which elements reach past the printable width (they would be cut at the paper's edge), and
// the text a reader of the paper gets.
const printCheck = `(() => {
  const W = %d;
  const hidden = ["header.site nav", "nav.langs", "nav.toc", "nav.pages", ".filter", ".filter-slot", ".treebar", "form", ".skip", "footer.site"];
  const shown = [];
  for (const sel of hidden) for (const el of document.querySelectorAll(sel)) if (el.getClientRects().length > 0) shown.push(sel);
  const wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && wide.length < 10) wide.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "") + " (" + Math.round(r.left) + "-" + Math.round(r.right) + "px)");
  }
  return {shown: shown, wide: wide, scrollWidth: document.documentElement.scrollWidth, text: document.body.innerText};
})()`

// TestPrint prints every page type of docSite with Chromium (DevTools Page.printToPDF on A4 with the default
// margins): under print media, laid out at the printable width, navigation, the term filter, the language switch
// and forms are not rendered, the page's definitions (or results) are in its text, and no element reaches past the
// printable width, so nothing is cut at the paper's right edge. The PDFs are kept beside the screenshots
// (htmltest.ArtefactDir, print-<page>.pdf).
func TestPrint(t *testing.T) {
	bin := htmltest.Chromium(t)
	h, cases := docSite(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	shots := htmltest.ArtefactDir(t)
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	d := htmltest.StartDevTools(t, bin)
	w := htmltest.PrintableWidth()
	d.Call("Emulation.setEmulatedMedia", map[string]any{"media": "print"}, nil)
	d.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": 1100, "deviceScaleFactor": 1, "mobile": false}, nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d.Navigate(srv.URL + tc.path)
			var res struct {
				Shown, Wide []string
				ScrollWidth int
				Text        string
			}
			d.Eval(fmt.Sprintf(printCheck, w), &res)
			if len(res.Shown) > 0 {
				t.Errorf("%s prints %v", tc.path, res.Shown)
			}
			if len(res.Wide) > 0 || res.ScrollWidth > w {
				t.Errorf("%s is %d px wide on paper (%d printable); too wide: %v", tc.path, res.ScrollWidth, w, res.Wide)
			}
			if want := printExpect[tc.name]; want == "" || !strings.Contains(res.Text, want) {
				t.Errorf("%s: the printed text lacks %q:\n%.600s", tc.path, want, res.Text)
			}
			for _, nav := range []string{"Skip to content", "Labels in:", "Run query"} {
				if strings.Contains(res.Text, nav) {
					t.Errorf("%s: the printed text has %q", tc.path, nav)
				}
			}
			pdf := d.PrintToPDF(filepath.Join(shots, "print-"+tc.name+".pdf"))
			t.Logf("%s: %d bytes of PDF", tc.path, len(pdf))
		})
	}
}

// TestLanguageSwitchKeyboard: on every page with a language switch the switch is visible in the first screen, the
// Tab key reaches its links, and Enter on one opens the page in that language (its link is then the current one).
func TestLanguageSwitchKeyboard(t *testing.T) {
	bin := htmltest.Chromium(t)
	h, cases := docSite(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	d := htmltest.StartDevTools(t, bin)
	d.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil)
	for _, tc := range cases {
		if !tc.langs {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			d.Navigate(srv.URL + tc.path)
			var vis struct {
				Links   int
				Visible bool
			}
			d.Eval(`(() => { const n = document.querySelector("nav.langs"); if (!n) return {links: 0, visible: false};
  const r = n.getBoundingClientRect(), s = getComputedStyle(n);
  return {links: n.querySelectorAll("a[href]").length, visible: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && s.visibility === "visible"}; })()`, &vis)
			if vis.Links < 2 || !vis.Visible {
				t.Fatalf("%s: the switch has %d links, visible in the first screen: %v", tc.path, vis.Links, vis.Visible)
			}
			var target string
			for i := 0; i < 60 && target == ""; i++ {
				d.PressTab()
				d.Eval(`(() => { const a = document.activeElement; return a && a.closest("nav.langs") && !a.hasAttribute("aria-current") ? a.getAttribute("hreflang") : ""; })()`, &target)
			}
			if target == "" {
				t.Fatalf("%s: 60 presses of Tab never reached a link of the language switch", tc.path)
			}
			d.PressEnter()
			d.WaitLoad()
			var current string
			d.Eval(`(() => { const a = document.querySelector("nav.langs a[aria-current]"); return a ? a.getAttribute("hreflang") : ""; })()`, &current)
			if current != target {
				t.Errorf("%s: Enter on the %s link opened a page whose current language is %q", tc.path, target, current)
			}
		})
	}
}

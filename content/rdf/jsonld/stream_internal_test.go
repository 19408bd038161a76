package jsonld

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendJSONStringIsEncodingJSON pins the hand-written quoting to encoding/json's without HTML escaping, byte
// for byte.
func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `quote " backslash \ slash /`, "tab\tnl\ncr\rbs\bff\f", "nul\x00 esc\x1b del\x7f",
		"<script>&amp;</script>", "line\u2028para\u2029", "bad \xff utf8 \xc3", "é ünïcödé 😀", "\xed\xa0\x80 surrogate"}
	for i := range 256 {
		cases = append(cases, string([]byte{byte(i), 'x', byte(255 - i)}))
	}
	for _, s := range cases {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := appendJSONString([]byte("keep"), s); string(got) != "keep"+string(want) {
			t.Errorf("%q: got %s, want %s", s, got[4:], want)
		}
	}
}

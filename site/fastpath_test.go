package site_test

import (
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/fastpath/fptest"
)

// TestFastPathAnswersLikeNetHTTP replays the conneg table (as GET, as HEAD and accepting gzip) through the fast path
// (site/fastpath) and through net/http alone: the answers must be equal byte for byte but for Date, and the
// fast path must answer the plain publication, version and VoID rows itself.
func TestFastPathAnswersLikeNetHTTP(t *testing.T) {
	f := newFixture(t)
	h := f.h.(*site.Handler)
	p := fptest.Start(t, h, h.Prepared, nil)
	var fast int64
	for _, tc := range connegTable(f.versions) {
		for _, variant := range []struct{ method, extra string }{{tc.method, ""}, {"HEAD", ""}, {tc.method, "Accept-Encoding: gzip\r\n"}} {
			raw := variant.method + " " + tc.path + " HTTP/1.1\r\nHost: hub.example\r\n" + variant.extra
			if tc.accept != "" {
				raw += "Accept: " + tc.accept + "\r\n"
			}
			if tc.auth {
				raw += "Authorization: Basic dmlld2VyOnNlY3JldA==\r\n"
			}
			if variant.method == "POST" {
				raw += "Content-Length: 0\r\n"
			}
			raw += "\r\n"
			t.Run(tc.name+"/"+variant.method+strings.TrimSuffix(variant.extra, "\r\n"), func(t *testing.T) {
				_, n := p.Compare(t, []byte(raw), 0)
				if n > 0 && (tc.auth || variant.method == tc.method && tc.status != 200 || strings.Contains(tc.path, "?")) {
					t.Errorf("the fast path answered a row it must leave to net/http")
				}
				fast += n
			})
		}
	}
	// 13 rows are plain publication, version and VoID requests, each sent three ways.
	if fast < 39 {
		t.Errorf("the fast path answered %d requests, want at least 39", fast)
	}
	t.Logf("the fast path answered %d requests", fast)
}

package webconf_test

import (
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/webconf"
)

// TestBalancerConfigRefusesBadAddresses: an address that would end an nginx directive early (or none at all) is an
// error, not a configuration that nginx reads differently; every node is a server of the one upstream.
func TestBalancerConfigRefusesBadAddresses(t *testing.T) {
	for _, c := range []webconf.BalancerConfig{
		{Listen: "80"},
		{Listen: "80", Nodes: []string{"127.0.0.1:8080; include /etc/passwd"}},
		{Listen: "80 ssl", Nodes: []string{"127.0.0.1:8080"}},
		{Listen: "80", Nodes: []string{""}},
	} {
		if conf, err := webconf.BalancerNginxConfig(c); err == nil {
			t.Errorf("%+v accepted:\n%s", c, conf)
		}
	}
	conf, err := webconf.BalancerNginxConfig(webconf.BalancerConfig{Listen: "127.0.0.1:8090", Nodes: []string{"127.0.0.1:8080", "127.0.0.1:8081"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server 127.0.0.1:8080 max_fails", "server 127.0.0.1:8081 max_fails", "listen 127.0.0.1:8090;", "proxy_next_upstream error timeout;"} {
		if !strings.Contains(conf, want) {
			t.Errorf("no %q in\n%s", want, conf)
		}
	}
	if strings.Contains(conf, "non_idempotent") {
		t.Error("writes must never be retried on another node")
	}
	if strings.Contains(conf, "http_503") {
		t.Error("a 503 (ldhub's SPARQL gate is full) must not take a node out of the pool")
	}
}

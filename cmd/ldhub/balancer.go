package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/site/webconf"
)

// runBalancer implements `ldhub balancer`: the nginx configuration of a load balancer over a primary and its
// read replicas, on stdout.
func runBalancer(_ context.Context, env *environment, args []string) error {
	fs := flags(env, "balancer", "balancer --listen ADDR --nodes HOST:PORT,HOST:PORT,...")
	listen := fs.String("listen", "80", "address nginx listens on")
	nodes := fs.String("nodes", "", "comma-separated addresses of every ldhub serve behind the balancer (primary and replicas)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var list []string
	for _, n := range strings.Split(*nodes, ",") {
		if n = strings.TrimSpace(n); n != "" {
			list = append(list, n)
		}
	}
	conf, err := webconf.BalancerNginxConfig(webconf.BalancerConfig{Listen: *listen, Nodes: list})
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(env.stdout, conf)
	return err
}

package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
)

func runIn(t *testing.T, data string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		getenv: func(k string) string {
			if k == "LDHUB_DATA" {
				return data
			}
			return ""
		}}
	code := run(context.Background(), env, args)
	return out.String(), errOut.String(), code
}

func TestAdminCommands(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	st, err := openStore(ctx, data, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGroup(ctx, model.SystemActor, model.Group{Name: "org"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	idRE := regexp.MustCompile(`id:\s+(\S+)\nsecret:\s+(\S+)`)
	out, errOut, code := runIn(t, data, "app", "create", "--name", "harvester")
	m := idRE.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("app create: %d %q %q", code, out, errOut)
	}
	app := m[1]
	out, _, code = runIn(t, data, "token", "create", "--expires", "720h")
	tm := idRE.FindStringSubmatch(out)
	if code != 0 || tm == nil {
		t.Fatalf("token create: %d %q", code, out)
	}

	for _, tc := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"app", "list"}, 0, app + "  harvester"},
		{[]string{"token", "list"}, 0, tm[1]},
		{[]string{"grant", "PUBLISHER", app, "/org"}, 0, "granted PUBLISHER"},
		{[]string{"grant", "PUBLISHER", app, "/nowhere"}, 1, "no group or repository at /nowhere"},
		{[]string{"grant", "KING", app, "/org"}, 1, "unknown role"},
		{[]string{"revoke", app, "/org"}, 0, "revoked PUBLISHER"},
		{[]string{"revoke", app, "/org"}, 1, "holds no grant"},
		{[]string{"token", "revoke", app}, 1, "is a application, not a token"},
		{[]string{"app", "revoke", app}, 0, "revoked " + app},
		{[]string{"app", "list"}, 0, "revoked"},
		{[]string{"token", "create", "--expires", "-1h"}, 1, "positive"},
		{[]string{"app", "frobnicate"}, 1, "unknown sub-command"},
	} {
		out, errOut, code := runIn(t, data, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.contains) {
			t.Errorf("ldhub %s: exit %d (want %d)\nstdout %q\nstderr %q\nwant %q", strings.Join(tc.args, " "), code, tc.code, out, errOut, tc.contains)
		}
	}
	// The revoked application cannot authenticate any more.
	st, err = openStore(ctx, data, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Authenticate(ctx, app, m[2]); err == nil {
		t.Error("revoked application still authenticates")
	}
	if _, err := st.Authenticate(ctx, tm[1], tm[2]); err != nil {
		t.Errorf("token: %v", err)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"serve", "--help"}, {"app", "--help"}, {"token", "create", "--help"}, {"grant", "--help"}, {"revoke", "--help"}, {"app", "list", "-h"}} {
		out, errOut, code := runIn(t, t.TempDir(), args...)
		if code != 0 || !strings.Contains(out, "usage: ldhub") {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, out, errOut)
		}
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
)

// The admin commands act on the data folder directly as the hub itself (the operator has the folder, so no
// credential is asked for).

func runApp(ctx context.Context, env *environment, args []string) error {
	return runCredential(ctx, env, model.Application, args)
}

func runToken(ctx context.Context, env *environment, args []string) error {
	return runCredential(ctx, env, model.Token, args)
}

func runCredential(ctx context.Context, env *environment, kind model.CredentialKind, args []string) error {
	name := string(kind)
	if name == string(model.Application) {
		name = "app"
	}
	usage := name + " create [--name NAME] [--admin]" + map[bool]string{true: " [--expires DURATION|RFC3339]"}[kind == model.Token] +
		" | " + name + " list | " + name + " revoke ID  [--data DIR]"
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(env.stdout, "usage: ldhub %s\n", usage)
		if len(args) == 0 {
			return errors.New("missing sub-command: create, list or revoke")
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	fs := flags(env, name+" "+sub, usage)
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	var label, expires *string
	var admin *bool
	switch sub {
	case "create":
		label = fs.String("name", "", "a name to recognise the credential by")
		admin = fs.Bool("admin", false, "hub administrator (OWNER on everything)")
		if kind == model.Token {
			expires = fs.String("expires", "", "expiry: a duration from now (720h) or an RFC 3339 time")
		}
	case "list", "revoke":
	default:
		return fmt.Errorf("unknown sub-command %q (want create, list or revoke)", sub)
	}
	if help, err := parse(fs, rest); help || err != nil {
		return err
	}
	st, err := openStore(ctx, *data, false)
	if err != nil {
		return err
	}
	defer st.Close()
	switch sub {
	case "create":
		if fs.NArg() > 0 {
			return fmt.Errorf("unexpected arguments %q", fs.Args())
		}
		spec := catalog.CredentialSpec{Kind: kind, Name: *label, Admin: *admin}
		if expires != nil && *expires != "" {
			at, err := parseExpiry(*expires, time.Now())
			if err != nil {
				return err
			}
			spec.ExpiresOn = at.UnixMilli()
		}
		cred, secret, err := st.CreateCredential(ctx, model.SystemActor, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "id:     %s\nsecret: %s\n(the secret is shown only now)\n", cred.ID, secret)
		return nil
	case "list":
		creds, err := st.Credentials(ctx, model.SystemActor)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tADMIN\tEXPIRES\tSTATE")
		for _, c := range creds {
			if c.Kind != kind {
				continue
			}
			exp := "never"
			if c.ExpiresOn != 0 {
				exp = time.UnixMilli(c.ExpiresOn).UTC().Format(time.RFC3339)
			}
			state := "active"
			switch {
			case c.Revoked:
				state = "revoked"
			case !c.Usable(time.Now()):
				state = "expired"
			}
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", c.ID, c.Name, c.Admin, exp, state)
		}
		return tw.Flush()
	default: // revoke
		if fs.NArg() != 1 {
			return fmt.Errorf("revoke needs exactly one credential id")
		}
		id := fs.Arg(0)
		creds, err := st.Credentials(ctx, model.SystemActor)
		if err != nil {
			return err
		}
		for _, c := range creds {
			if c.ID == id && c.Kind != kind {
				return fmt.Errorf("%s is a %s, not a %s", id, c.Kind, kind)
			}
		}
		if err := st.RevokeCredential(ctx, model.SystemActor, id); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "revoked %s\n", id)
		return nil
	}
}

// parseExpiry reads a duration from now or an RFC 3339 time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--expires %s: the duration must be positive", s)
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--expires %q: want a duration (720h) or an RFC 3339 time", s)
	}
	return t, nil
}

func runGrant(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "grant", "grant ROLE CREDENTIAL GROUP-OR-REPOSITORY-PATH [--data DIR]")
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	if help, err := parse(fs, interspersed(args)); help || err != nil {
		return err
	}
	if fs.NArg() != 3 {
		return errors.New("want ROLE CREDENTIAL PATH, e.g. ldhub grant PUBLISHER 3f2a… /org/repo")
	}
	role, err := model.ParseRole(fs.Arg(0))
	if err != nil {
		return err
	}
	st, err := openStore(ctx, *data, false)
	if err != nil {
		return err
	}
	defer st.Close()
	target, err := resolvePath(ctx, st, fs.Arg(2))
	if err != nil {
		return err
	}
	g, err := st.Grant(ctx, model.SystemActor, fs.Arg(1), target, role)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "granted %s to %s on %s (grant %s)\n", g.Role, g.CredentialID, fs.Arg(2), g.ID)
	return nil
}

func runRevoke(ctx context.Context, env *environment, args []string) error {
	fs := flags(env, "revoke", "revoke CREDENTIAL GROUP-OR-REPOSITORY-PATH [--data DIR]   (removes the credential's grant there)")
	data := fs.String("data", envOr(env, "LDHUB_DATA", "./ldhub-data"), "data folder (env LDHUB_DATA)")
	if help, err := parse(fs, interspersed(args)); help || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("want CREDENTIAL PATH; to revoke a credential itself use 'ldhub app revoke' or 'ldhub token revoke'")
	}
	st, err := openStore(ctx, *data, false)
	if err != nil {
		return err
	}
	defer st.Close()
	target, err := resolvePath(ctx, st, fs.Arg(1))
	if err != nil {
		return err
	}
	gs, err := st.Grants(ctx, model.SystemActor, fs.Arg(0), target)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		return fmt.Errorf("%s holds no grant on %s", fs.Arg(0), fs.Arg(1))
	}
	for _, g := range gs {
		if err := st.RevokeGrant(ctx, model.SystemActor, g.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "revoked %s of %s on %s\n", g.Role, g.CredentialID, fs.Arg(1))
	}
	return nil
}

func resolvePath(ctx context.Context, st *store.Store, path string) (string, error) {
	id, _, err := st.Resolve(ctx, model.SystemActor, "/"+strings.Trim(path, "/"))
	if err != nil {
		return "", fmt.Errorf("no group or repository at %s", path)
	}
	return id, nil
}

// interspersed moves flags after positional arguments to the front, so `grant ROLE CRED PATH --data DIR` works
// like the documented order.
func interspersed(args []string) []string {
	var flagArgs, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flagArgs = append(flagArgs, a)
			if !strings.Contains(a, "=") && a != "-h" && a != "--help" && i+1 < len(args) {
				flagArgs = append(flagArgs, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flagArgs, pos...)
}

package catalog

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"sort"

	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Role is the role actor holds on a group or repository: the strongest grant on it or on any group above it.
func (st *State) Role(a model.Actor, id string) model.Role {
	if a.System || a.Admin {
		return model.Owner
	}
	if a.CredentialID == "" {
		return model.RoleNone
	}
	best := model.RoleNone
	chain := st.ancestors(id)
	for _, g := range st.Grants {
		if g.CredentialID != a.CredentialID || g.Role <= best {
			continue
		}
		for _, anc := range chain {
			if g.TargetID == anc {
				best = g.Role
				break
			}
		}
	}
	return best
}

// CanSee reports whether actor may know that a group or repository exists. Visible repositories and public
// groups are open to everyone; a group is also seen by whoever can see something below it (so the path to a
// granted repository can be walked).
func (st *State) CanSee(a model.Actor, id string) bool {
	if st.Role(a, id) >= model.Viewer {
		return true
	}
	if r, ok := st.Repos[id]; ok {
		return r.Visible
	}
	g, ok := st.Groups[id]
	if !ok {
		return false
	}
	if g.Type == model.GroupPublic {
		return true
	}
	for _, r := range st.Repos {
		if r.ParentID == id && st.CanSee(a, r.ID) {
			return true
		}
	}
	for _, sub := range st.Groups {
		if sub.ParentID == id && st.CanSee(a, sub.ID) {
			return true
		}
	}
	return false
}

// Require checks that actor holds at least role on id. What the actor may not see is reported as not found,
// exactly as if it did not exist; what it sees but may not change, as forbidden.
func (st *State) Require(a model.Actor, id string, role model.Role, what string) error {
	_, isGroup := st.Groups[id]
	_, isRepo := st.Repos[id]
	if !isGroup && !isRepo || !st.CanSee(a, id) {
		return model.NotFoundf("%s %s not found", what, id)
	}
	if st.Role(a, id) < role {
		if a.CredentialID == "" {
			return model.Unauthorizedf("%s %s: credentials required", what, id)
		}
		// The path too: a git pusher knows the repository by its URL, not its id. The caller sees it, so
		// naming it tells nothing new.
		return model.Forbiddenf("%s %s (%s): needs %s", what, st.Path(id), id, role)
	}
	return nil
}

// NewSecret returns a random secret for a credential.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never returns an error since Go 1.24
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CredentialSpec describes a credential to create.
type CredentialSpec struct {
	Kind model.CredentialKind
	Name string
	// ID and Secret are normally generated; the administrator credential may take them from the environment.
	ID, Secret string
	ExpiresOn  int64 // epoch milliseconds; zero never expires
	Admin      bool
}

// CreateCredential records a new application or token and returns it with its secret, which is shown only now:
// only a bcrypt hash is committed.
func (c *Catalog) CreateCredential(ctx context.Context, actor model.Actor, spec CredentialSpec) (model.Credential, string, error) {
	if !actor.System && !actor.Admin {
		return model.Credential{}, "", model.Forbiddenf("only an administrator creates credentials")
	}
	if spec.Kind != model.Application && spec.Kind != model.Token {
		return model.Credential{}, "", model.Invalidf("credential kind must be %q or %q", model.Application, model.Token)
	}
	if spec.ID == "" {
		spec.ID = model.NewID()
	} else if !model.ValidSegment(spec.ID) {
		return model.Credential{}, "", model.Invalidf("credential id %q: use 1-64 characters of [A-Za-z0-9._-]", spec.ID)
	}
	if spec.Secret == "" {
		spec.Secret = NewSecret()
	} else if len(spec.Secret) < 12 || len(spec.Secret) > 72 {
		return model.Credential{}, "", model.Invalidf("a secret must have 12 to 72 bytes")
	}
	now := c.now()
	if spec.ExpiresOn != 0 && spec.ExpiresOn <= now.UnixMilli() {
		return model.Credential{}, "", model.Invalidf("expiry lies in the past")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(spec.Secret), c.cost())
	if err != nil {
		return model.Credential{}, "", fmt.Errorf("catalog: hash secret: %w", err)
	}
	cred := model.Credential{ID: spec.ID, Kind: spec.Kind, Name: spec.Name, SecretHash: string(hash), Admin: spec.Admin,
		CreatedBy: actor.CredentialID, CreatedOn: now.UnixMilli(), ExpiresOn: spec.ExpiresOn}
	if cred.Name == "" {
		cred.Name = cred.ID
	}
	err = c.update(ctx, actor, fmt.Sprintf("Create %s %s (%s)", cred.Kind, cred.ID, cred.Name), func(st *State, tx *gitrepo.Tx) error {
		if _, dup := st.Creds[cred.ID]; dup {
			return model.Conflictf("credential %s exists", cred.ID)
		}
		return put(tx, credsDir, cred.ID, cred)
	})
	if err != nil {
		return model.Credential{}, "", err
	}
	return cred.Public(), spec.Secret, nil
}

func (c *Catalog) cost() int {
	if c.hashCost > 0 {
		return c.hashCost
	}
	return bcrypt.DefaultCost
}

// RevokeCredential marks a credential unusable (it stays in the catalogue for the audit trail). An administrator
// may revoke any credential; a credential may revoke itself.
func (c *Catalog) RevokeCredential(ctx context.Context, actor model.Actor, id string) error {
	if !actor.System && !actor.Admin && actor.CredentialID != id {
		return model.NotFoundf("credential %s not found", id)
	}
	err := c.update(ctx, actor, "Revoke credential "+id, func(st *State, tx *gitrepo.Tx) error {
		cred, ok := st.Creds[id]
		if !ok {
			return model.NotFoundf("credential %s not found", id)
		}
		cred.Revoked = true
		return put(tx, credsDir, id, cred)
	})
	if err == nil {
		c.mu.Lock()
		delete(c.verified, id)
		c.mu.Unlock()
	}
	return err
}

// Credentials lists the credentials without their hashes, by id.
func (c *Catalog) Credentials(ctx context.Context, actor model.Actor) ([]model.Credential, error) {
	st, err := c.View()
	if err != nil {
		return nil, err
	}
	var out []model.Credential
	for _, cr := range st.Creds {
		if actor.System || actor.Admin || cr.ID == actor.CredentialID {
			out = append(out, cr.Public())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Authenticate checks an id and secret (HTTP Basic) and returns the acting credential. Every failure is the same
// Unauthorized error, so a caller learns nothing about which part was wrong.
func (c *Catalog) Authenticate(ctx context.Context, id, secret string) (model.Credential, error) {
	fail := model.Unauthorizedf("invalid credentials")
	st, err := c.View()
	if err != nil {
		return model.Credential{}, err
	}
	cred, ok := st.Creds[id]
	if !ok || !cred.Usable(c.now()) {
		// Spend the same time as a real check so that unknown ids cannot be told apart by timing.
		_ = bcrypt.CompareHashAndPassword(c.dummy, []byte(secret))
		return model.Credential{}, fail
	}
	fast := sha256.Sum256([]byte(cred.SecretHash + "\x00" + secret))
	c.mu.Lock()
	known, seen := c.verified[id]
	c.mu.Unlock()
	if seen && subtle.ConstantTimeCompare(known[:], fast[:]) == 1 {
		return cred.Public(), nil
	}
	if bcrypt.CompareHashAndPassword([]byte(cred.SecretHash), []byte(secret)) != nil {
		return model.Credential{}, fail
	}
	c.mu.Lock()
	c.verified[id] = fast
	c.mu.Unlock()
	return cred.Public(), nil
}

// EnsureAdmin makes sure an administrator credential exists. When none does, it creates one with id and secret
// (generated when empty) and returns the secret, so the caller can print it once; otherwise created is false.
func (c *Catalog) EnsureAdmin(ctx context.Context, id, secret string) (cred model.Credential, newSecret string, created bool, err error) {
	st, err := c.View()
	if err != nil {
		return model.Credential{}, "", false, err
	}
	for _, cr := range st.Creds {
		if cr.Admin && !cr.Revoked && (id == "" || cr.ID == id) {
			return cr.Public(), "", false, nil
		}
	}
	cred, newSecret, err = c.CreateCredential(ctx, model.SystemActor, CredentialSpec{
		Kind: model.Application, Name: "administrator", ID: id, Secret: secret, Admin: true})
	return cred, newSecret, err == nil, err
}

// Grant gives a credential a role on a group or repository. MANAGER may grant up to PUBLISHER; OWNER any role.
func (c *Catalog) Grant(ctx context.Context, actor model.Actor, credID, targetID string, role model.Role) (model.Grant, error) {
	if role < model.Viewer || role > model.Owner {
		return model.Grant{}, model.Invalidf("unknown role %d", role)
	}
	g := model.Grant{ID: model.NewID(), CredentialID: credID, TargetID: targetID, Role: role,
		CreatedBy: actor.CredentialID, CreatedOn: c.now().UnixMilli()}
	err := c.update(ctx, actor, fmt.Sprintf("Grant %s to %s on %s", role, credID, targetID), func(st *State, tx *gitrepo.Tx) error {
		if err := st.requireGrantor(actor, targetID, role); err != nil {
			return err
		}
		if _, ok := st.Creds[credID]; !ok {
			return model.NotFoundf("credential %s not found", credID)
		}
		for _, old := range st.Grants {
			if old.CredentialID == credID && old.TargetID == targetID {
				// One grant per credential and target: granting again changes the role.
				if err := st.requireGrantor(actor, targetID, old.Role); err != nil {
					return err
				}
				g.ID = old.ID
			}
		}
		return put(tx, grantsDir, g.ID, g)
	})
	return g, err
}

func (st *State) requireGrantor(actor model.Actor, targetID string, role model.Role) error {
	need := model.Owner
	if role <= model.Publisher {
		need = model.Manager
	}
	return st.Require(actor, targetID, need, "target")
}

// RevokeGrant removes a grant; it needs the authority that could have made it.
func (c *Catalog) RevokeGrant(ctx context.Context, actor model.Actor, grantID string) error {
	return c.update(ctx, actor, "Revoke grant "+grantID, func(st *State, tx *gitrepo.Tx) error {
		g, ok := st.Grants[grantID]
		if !ok {
			return model.NotFoundf("grant %s not found", grantID)
		}
		if err := st.requireGrantor(actor, g.TargetID, g.Role); err != nil {
			return err
		}
		tx.Delete(grantsDir + "/" + grantID + ".json")
		return nil
	})
}

// Grants lists the grants on a target (a group or repository) or of a credential; empty arguments match all.
func (c *Catalog) Grants(ctx context.Context, actor model.Actor, credID, targetID string) ([]model.Grant, error) {
	st, err := c.View()
	if err != nil {
		return nil, err
	}
	var out []model.Grant
	for _, g := range st.Grants {
		if credID != "" && g.CredentialID != credID || targetID != "" && g.TargetID != targetID {
			continue
		}
		if g.CredentialID == actor.CredentialID || st.Role(actor, g.TargetID) >= model.Manager {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

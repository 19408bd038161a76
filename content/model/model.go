// Package model holds ldhub's domain types (groups, repositories, publications, files, versions, credentials,
// grants) and the typed errors the API maps to HTTP statuses. It depends only on the RDF model so that the store,
// the pipeline and the API can all share it.
package model

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Role is a permission level; each role includes the ones before it.
type Role int

const (
	RoleNone Role = iota
	Viewer
	Publisher
	Manager
	Owner
)

var roleNames = [...]string{"", "VIEWER", "PUBLISHER", "MANAGER", "OWNER"}

func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("Role(%d)", int(r))
	}
	return roleNames[r]
}

// ParseRole reads a role name (case-insensitive).
func ParseRole(s string) (Role, error) {
	for i, n := range roleNames {
		if i > 0 && strings.EqualFold(s, n) {
			return Role(i), nil
		}
	}
	return RoleNone, Invalidf("unknown role %q (want VIEWER, PUBLISHER, MANAGER or OWNER)", s)
}

func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

func (r *Role) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = RoleNone
		return nil
	}
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// GroupType is PRIVATE, PUBLIC or USER.
type GroupType string

const (
	GroupPrivate GroupType = "PRIVATE"
	GroupPublic  GroupType = "PUBLIC"
	GroupUser    GroupType = "USER"
)

// Valid reports whether t is one of the three group types.
func (t GroupType) Valid() bool {
	return t == GroupPrivate || t == GroupPublic || t == GroupUser
}

// VersioningMode decides the label of a new version (decisions.md, "Versioning modes").
type VersioningMode string

const (
	Undefined   VersioningMode = "UNDEFINED"
	None        VersioningMode = "NONE"
	Timestamp   VersioningMode = "TIMESTAMP"
	Incremental VersioningMode = "INCREMENTAL"
	DateTime    VersioningMode = "DATE_TIME"
	Custom      VersioningMode = "CUSTOM"
)

// Valid reports whether m is a known mode; the empty mode counts as UNDEFINED.
func (m VersioningMode) Valid() bool {
	switch m {
	case "", Undefined, None, Timestamp, Incremental, DateTime, Custom:
		return true
	}
	return false
}

// Or returns m, or UNDEFINED when m is empty.
func (m VersioningMode) Or() VersioningMode {
	if m == "" {
		return Undefined
	}
	return m
}

// Group is a node of the catalogue tree. Its record is a JSON file in the hub git repository.
type Group struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Type        GroupType `json:"type"`
	Description string    `json:"description,omitempty"`
	Owner       string    `json:"owner,omitempty"`
	ParentID    string    `json:"parentId,omitempty"`
	PathSegment string    `json:"pathSegment"`
	CreatedBy   string    `json:"createdBy,omitempty"`
	CreatedOn   int64     `json:"createdOn,omitempty"`
	ModifiedBy  string    `json:"modifiedBy,omitempty"`
	ModifiedOn  int64     `json:"modifiedOn,omitempty"`
}

// Repository is an ldhub repository: one bare git repository holding publications and files.
type Repository struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Owner       string `json:"owner,omitempty"`
	ParentID    string `json:"parentId"`
	PathSegment string `json:"pathSegment"`
	Visible     bool   `json:"visible"`
	CreatedBy   string `json:"createdBy,omitempty"`
	CreatedOn   int64  `json:"createdOn,omitempty"`
	ModifiedBy  string `json:"modifiedBy,omitempty"`
	ModifiedOn  int64  `json:"modifiedOn,omitempty"`
}

// CredentialKind tells a v3 application from a v4 access token; both authenticate the same way.
type CredentialKind string

const (
	Application CredentialKind = "application"
	Token       CredentialKind = "token"
)

// Credential is an application or token. Only a slow salted hash of its secret is ever stored.
type Credential struct {
	ID         string         `json:"id"`
	Kind       CredentialKind `json:"kind"`
	Name       string         `json:"name"`
	SecretHash string         `json:"secretHash"`
	// Admin credentials hold OWNER on everything.
	Admin     bool   `json:"admin,omitempty"`
	CreatedBy string `json:"createdBy,omitempty"`
	CreatedOn int64  `json:"createdOn,omitempty"`
	// ExpiresOn is in epoch milliseconds; zero never expires.
	ExpiresOn int64 `json:"expiresOn,omitempty"`
	Revoked   bool  `json:"revoked,omitempty"`
}

// Usable reports whether the credential may still authenticate at now.
func (c Credential) Usable(now time.Time) bool {
	return !c.Revoked && (c.ExpiresOn == 0 || now.UnixMilli() < c.ExpiresOn)
}

// Public returns a copy without the secret hash, for listings.
func (c Credential) Public() Credential {
	c.SecretHash = ""
	return c
}

// Grant gives a credential a role on a group (and everything below it) or on a repository.
type Grant struct {
	ID           string `json:"id"`
	CredentialID string `json:"credentialId"`
	TargetID     string `json:"targetId"`
	Role         Role   `json:"role"`
	CreatedBy    string `json:"createdBy,omitempty"`
	CreatedOn    int64  `json:"createdOn,omitempty"`
}

// Actor is who performs a store operation: the authenticated credential, or the hub itself.
type Actor struct {
	CredentialID string
	Name         string
	Admin        bool
	// System marks internal work (pipeline, command line) that is not subject to grants.
	System bool
}

// SystemActor is the hub acting on its own behalf.
var SystemActor = Actor{CredentialID: "ldhub", Name: "ldhub", System: true}

// ActorOf returns the actor for an authenticated credential.
func ActorOf(c Credential) Actor {
	return Actor{CredentialID: c.ID, Name: c.Name, Admin: c.Admin}
}

// PublicationMeta is the content of a publication's `.meta.json` sidecar: api.md 2.11 fields plus its stable id.
type PublicationMeta struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	Description         string         `json:"description,omitempty"`
	Owner               string         `json:"owner,omitempty"`
	Publisher           string         `json:"publisher,omitempty"`
	VersioningMode      VersioningMode `json:"versioningMode,omitempty"`
	VersionLabel        string         `json:"versionLabel,omitempty"`
	UseVersionedBaseURI bool           `json:"useVersionedBaseUri,omitempty"`
	SchemaURIs          []string       `json:"schemaURIs,omitempty"`
	PublicationURI      string         `json:"publicationUri,omitempty"`
	// RetractedVersions lists the versions deleted through the API: git cannot drop a commit that others may
	// have cloned, so a version delete is recorded here and the version is no longer offered.
	RetractedVersions []Retraction `json:"retractedVersions,omitempty"`
}

// Retraction records one deleted (retracted) version in a sidecar. Commit identifies it; id and label are kept
// for people reading the sidecar.
type Retraction struct {
	Commit string `json:"commit"`
	ID     string `json:"id,omitempty"`
	Label  string `json:"version,omitempty"`
}

// Version is one commit that changed a publication's (or file's) content.
type Version struct {
	ID      string    `json:"id"`
	Label   string    `json:"version"`
	Commit  string    `json:"commit"`
	Time    time.Time `json:"publicationDate"`
	Author  string    `json:"publisher,omitempty"`
	Message string    `json:"description,omitempty"`
	// Path is the content's path in the tree at that commit (the extension may change between versions).
	Path string `json:"path"`
	// Blob is the git object id of the content at that version.
	Blob string `json:"-"`
}

// Publication is a publication as of one version: its meta-data, where it lives and its versions.
type Publication struct {
	PublicationMeta
	RepositoryID string `json:"repositoryId"`
	// Path is the file's path in the repository tree, extension included.
	Path string `json:"path"`
	// Version is the version this view shows (the latest unless asked otherwise).
	Version Version `json:"latest"`
	// Versions lists the versions offered, oldest first (only the latest under NONE).
	Versions []Version `json:"versions"`
	// Retracted lists the versions deleted through the API, oldest first: their direct URLs are gone for good.
	Retracted  []Version `json:"-"`
	CreatedOn  time.Time `json:"createdOn"`
	ModifiedOn time.Time `json:"modifiedOn"`
}

// FileMeta is the content of a file's `.meta.json` sidecar.
type FileMeta struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	MimeType       string         `json:"mimeType,omitempty"`
	VersioningMode VersioningMode `json:"versioningMode,omitempty"`
	VersionLabel   string         `json:"versionLabel,omitempty"`
	CreatedBy      string         `json:"createdBy,omitempty"`
	CreatedOn      int64          `json:"createdOn,omitempty"`
	ModifiedBy     string         `json:"modifiedBy,omitempty"`
	ModifiedOn     int64          `json:"modifiedOn,omitempty"`
}

// File is a non-RDF file under `files/` as of one version.
type File struct {
	FileMeta
	RepositoryID string    `json:"repositoryId"`
	Path         string    `json:"location"`
	Size         int64     `json:"size"`
	Version      Version   `json:"latest"`
	Versions     []Version `json:"versions"`
}

var segmentRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// MaxPathLen bounds the path of a publication or file in its repository (a publicationUri, a file's name, a pushed
// file's path), in bytes. The site stores each publication in folders along its URL path, below the data folder
// and the group and repository paths, and the longest file of a version lies a few segments further down: Linux
// refuses a path over 4096 bytes (ENAMETOOLONG), so a push of a 75-level path was accepted and then never
// rendered. 512 leaves the rest of the 4096 to those, and is far beyond any vocabulary's URL.
const MaxPathLen = 512

// ValidSegment reports whether s is a pathSegment: 1–64 chars of [A-Za-z0-9._-], not starting with a dot.
func ValidSegment(s string) bool {
	return segmentRE.MatchString(s) && !strings.HasPrefix(s, ".")
}

// SegmentFrom derives a pathSegment from a name: runs of other characters become one '-', the result is cut to
// 64 characters. It returns "" when nothing usable is left.
func SegmentFrom(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(strings.TrimLeft(b.String(), "."), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	return s
}

// Marshal renders a record the way the store commits it: indented, stable field order, trailing newline, so
// that publishers read clean diffs.
func Marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

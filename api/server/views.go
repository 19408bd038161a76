package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/httpx/apierr"
)

// The JSON shapes of api.md §2, one struct per schema, so that field names are fixed in one place and the Swagger
// definitions are generated from the same types. Optional fields without a value are null rather than absent:
// a Spring-era client sees every field of a schema.

// Group is api.md 2.1.
type Group struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Description string  `json:"description"`
	Owner       string  `json:"owner"`
	ParentID    *string `json:"parentId"`
	PathSegment string  `json:"pathSegment"`
	CreatedBy   string  `json:"createdBy"`
	CreatedOn   int64   `json:"createdOn"`
	ModifiedBy  string  `json:"modifiedBy"`
	ModifiedOn  int64   `json:"modifiedOn"`
}

// GroupView is api.md 2.2 (no pathSegment).
type GroupView struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	Type            string  `json:"type"`
	Description     string  `json:"description"`
	Owner           string  `json:"owner"`
	ParentID        *string `json:"parentId"`
	CreatedBy       string  `json:"createdBy"`
	CreatedOn       int64   `json:"createdOn"`
	ModifiedBy      string  `json:"modifiedBy"`
	ModifiedOn      int64   `json:"modifiedOn"`
	Path            string  `json:"path"`
	RepositoryCount int32   `json:"repositoryCount"`
	SubgroupCount   int32   `json:"subgroupCount"`
	Role            *string `json:"role"`
}

// GroupViewPage is api.md 2.3.
type GroupViewPage struct {
	Contents []GroupView `json:"contents"`
	Total    int64       `json:"total"`
}

// GroupPartial is api.md 2.4.
type GroupPartial struct {
	Description *string `json:"description"`
	Name        *string `json:"name"`
	Owner       *string `json:"owner"`
	ParentID    *string `json:"parentId"`
	Type        *string `json:"type"`
}

// Repository is api.md 2.5.
type Repository struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	ParentID        string `json:"parentId"`
	PathSegment     string `json:"pathSegment"`
	CreatedBy       string `json:"createdBy"`
	CreatedOn       int64  `json:"createdOn"`
	ModifiedBy      string `json:"modifiedBy"`
	ModifiedOn      int64  `json:"modifiedOn"`
	PubliclyVisible bool   `json:"publiclyVisible"`
}

// RepositoryData is api.md 2.6.
type RepositoryData struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Description      string `json:"description"`
	Owner            string `json:"owner"`
	ParentID         string `json:"parentId"`
	PathSegment      string `json:"pathSegment"`
	Visible          bool   `json:"visible"`
	CreatedBy        string `json:"createdBy"`
	CreatedOn        int64  `json:"createdOn"`
	ModifiedBy       string `json:"modifiedBy"`
	ModifiedOn       int64  `json:"modifiedOn"`
	PublicationCount int32  `json:"publicationCount"`
}

// RepositoryDataInput is the request of createRepositoryInGroup: RepositoryData with `visible` optional.
type RepositoryDataInput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Owner       string `json:"owner"`
	ParentID    string `json:"parentId"`
	PathSegment string `json:"pathSegment"`
	Visible     *bool  `json:"visible"`
}

// RepositoryPartial is api.md 2.7.
type RepositoryPartial struct {
	Description *string `json:"description"`
	Name        *string `json:"name"`
	Visible     *bool   `json:"visible"`
}

// RepositoryPage is api.md 2.8.
type RepositoryPage struct {
	Contents []RepositoryData `json:"contents"`
	Total    int64            `json:"total"`
}

// RepositoryView is api.md 2.9.
type RepositoryView struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	Owner            string  `json:"owner"`
	Status           string  `json:"status"`
	Description      string  `json:"description"`
	FullPath         string  `json:"fullPath"`
	AccessRequestID  *string `json:"accessRequestId"`
	PublicVisibility bool    `json:"publicVisibility"`
}

// PublicationVersionView is an item of api.md 2.10 `versions`.
type PublicationVersionView struct {
	ID              string   `json:"id"`
	Description     string   `json:"description"`
	Publisher       string   `json:"publisher"`
	Version         string   `json:"version"`
	PublicationDate string   `json:"publicationDate"`
	SchemaURIs      []string `json:"schemaURIs"`
}

// PublicationView is api.md 2.10 (single-publication responses; date-time as RFC 3339).
type PublicationView struct {
	ID                  string                   `json:"id"`
	Name                string                   `json:"name"`
	Description         string                   `json:"description"`
	Owner               string                   `json:"owner"`
	Publisher           string                   `json:"publisher"`
	Repository          string                   `json:"repository"`
	PublicationDate     string                   `json:"publicationDate"`
	SchemaURIs          []string                 `json:"schemaURIs"`
	UseVersionedBaseURI bool                     `json:"useVersionedBaseUri"`
	VersioningMode      string                   `json:"versioningMode"`
	Versions            []PublicationVersionView `json:"versions"`
}

// PublicationListItem is an item of getRepositoryPublications: both observed field sets (decisions.md), with
// publicationDate in epoch milliseconds.
type PublicationListItem struct {
	ID                  string                   `json:"id"`
	Name                string                   `json:"name"`
	Description         string                   `json:"description"`
	Owner               string                   `json:"owner"`
	Publisher           string                   `json:"publisher"`
	Repository          string                   `json:"repository"`
	RepositoryID        string                   `json:"repositoryId"`
	URI                 string                   `json:"uri"`
	PublicationDate     int64                    `json:"publicationDate"`
	SchemaURIs          []string                 `json:"schemaURIs"`
	VersioningMode      string                   `json:"versioningMode"`
	UseVersionedBaseURI bool                     `json:"useVersionedBaseUri"`
	Versions            []PublicationVersionView `json:"versions"`
}

// PublicationMetaInput is api.md 2.11.
type PublicationMetaInput struct {
	PublicationURI      string   `json:"publicationUri"`
	Name                string   `json:"name"`
	VersioningMode      string   `json:"versioningMode"`
	VersionLabel        string   `json:"versionLabel"`
	UseVersionedBaseURI bool     `json:"useVersionedBaseUri"`
	Description         string   `json:"description"`
	Owner               string   `json:"owner"`
	Publisher           string   `json:"publisher"`
	SchemaURIs          []string `json:"schemaURIs"`
}

// PublicationMetaPatch is the optional JSON body of updatePublicationMetadata: the meta-data a publication has
// (a new version label comes only with new content, through updatePublication).
type PublicationMetaPatch struct {
	Name                *string               `json:"name"`
	Description         *string               `json:"description"`
	Owner               *string               `json:"owner"`
	Publisher           *string               `json:"publisher"`
	VersioningMode      *model.VersioningMode `json:"versioningMode"`
	VersionLabel        *string               `json:"-"`
	UseVersionedBaseURI *bool                 `json:"useVersionedBaseUri"`
	SchemaURIs          *[]string             `json:"schemaURIs"`
}

// FileInfo is api.md 2.12.
type FileInfo struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Location       string `json:"location"`
	MimeType       string `json:"mimeType"`
	RepositoryID   string `json:"repositoryId"`
	CreatedBy      string `json:"createdBy"`
	ModifiedBy     string `json:"modifiedBy"`
	CreatedOn      int64  `json:"createdOn"`
	ModifiedOn     int64  `json:"modifiedOn"`
	VersioningMode string `json:"versioningMode"`
}

// FileInfoInput is the JSON of the `fileInfo` part.
type FileInfoInput struct {
	Name           string `json:"name"`
	VersioningMode string `json:"versioningMode"`
	VersionLabel   string `json:"versionLabel"`
}

// V4Page is every v4 list (api.md 2.14).
type V4Page[T any] struct {
	Total    int64 `json:"total"`
	Contents []T   `json:"contents"`
}

// V4Repository is a v4 repository item.
type V4Repository struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	PathSegment string `json:"pathSegment"`
	Owner       string `json:"owner"`
	Path        string `json:"path"`
	ParentID    string `json:"parentId"`
	CreatedBy   string `json:"createdBy"`
	CreatedOn   int64  `json:"createdOn"`
	ModifiedBy  string `json:"modifiedBy"`
	ModifiedOn  int64  `json:"modifiedOn"`
	Public      bool   `json:"public"`
}

// V4Publication is a v4 publication item; publicationDate is seconds since the epoch with a fraction.
type V4Publication struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Description        string   `json:"description"`
	RepositoryID       string   `json:"repositoryId"`
	Owner              string   `json:"owner"`
	Publisher          string   `json:"publisher"`
	PublicationDate    float64  `json:"publicationDate"`
	URI                string   `json:"uri"`
	UseVersionBasedURI bool     `json:"useVersionBasedUri"`
	VersioningMode     string   `json:"versioningMode"`
	SchemaURIs         []string `json:"schemaURIs"`
	Pending            bool     `json:"pending"`
}

// VersionList is the answer of GET /api/v3/publications/{id}/versions.
type VersionList []PublicationVersionView

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func groupOut(g model.Group) Group {
	return Group{ID: g.ID, Name: g.Name, Type: string(g.Type), Description: g.Description, Owner: g.Owner,
		ParentID: strPtr(g.ParentID), PathSegment: g.PathSegment, CreatedBy: g.CreatedBy, CreatedOn: g.CreatedOn,
		ModifiedBy: g.ModifiedBy, ModifiedOn: g.ModifiedOn}
}

// groupView counts only the children the caller may see, so counts leak nothing either.
func groupView(st *catalog.State, a model.Actor, g model.Group) GroupView {
	v := GroupView{ID: g.ID, Name: g.Name, Type: string(g.Type), Description: g.Description, Owner: g.Owner,
		ParentID: strPtr(g.ParentID), CreatedBy: g.CreatedBy, CreatedOn: g.CreatedOn, ModifiedBy: g.ModifiedBy,
		ModifiedOn: g.ModifiedOn, Path: st.Path(g.ID)}
	gs, rs := st.Children(g.ID)
	for _, sub := range gs {
		if st.CanSee(a, sub.ID) {
			v.SubgroupCount++
		}
	}
	for _, r := range rs {
		if st.CanSee(a, r.ID) {
			v.RepositoryCount++
		}
	}
	if role := st.Role(a, g.ID); role > model.RoleNone {
		v.Role = strPtr(role.String())
	}
	return v
}

func repositoryOut(r model.Repository) Repository {
	return Repository{ID: r.ID, Name: r.Name, Description: r.Description, ParentID: r.ParentID,
		PathSegment: r.PathSegment, CreatedBy: r.CreatedBy, CreatedOn: r.CreatedOn, ModifiedBy: r.ModifiedBy,
		ModifiedOn: r.ModifiedOn, PubliclyVisible: r.Visible}
}

func repositoryData(r model.Repository, publications int) RepositoryData {
	return RepositoryData{ID: r.ID, Name: r.Name, Description: r.Description, Owner: ownerOf(r), ParentID: r.ParentID,
		PathSegment: r.PathSegment, Visible: r.Visible, CreatedBy: r.CreatedBy, CreatedOn: r.CreatedOn,
		ModifiedBy: r.ModifiedBy, ModifiedOn: r.ModifiedOn, PublicationCount: int32(publications)}
}

// ownerOf is the repository's owner as recorded, else the credential that created it (RepositoryView.owner is
// required).
func ownerOf(r model.Repository) string {
	if r.Owner != "" {
		return r.Owner
	}
	return r.CreatedBy
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func versionViews(p model.Publication) []PublicationVersionView {
	out := make([]PublicationVersionView, 0, len(p.Versions))
	for _, v := range p.Versions {
		out = append(out, versionView(p, v))
	}
	return out
}

// versionView: the store keeps schemaURIs per publication, not per version, so each version shows the
// publication's current list.
func versionView(p model.Publication, v model.Version) PublicationVersionView {
	return PublicationVersionView{ID: v.ID, Description: strings.TrimSpace(v.Message), Publisher: v.Author,
		Version: v.Label, PublicationDate: rfc3339(v.Time), SchemaURIs: nonNil(p.SchemaURIs)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func publicationView(p model.Publication) PublicationView {
	return PublicationView{ID: p.ID, Name: p.Name, Description: p.Description, Owner: p.Owner, Publisher: p.Publisher,
		Repository: p.RepositoryID, PublicationDate: rfc3339(p.Version.Time), SchemaURIs: nonNil(p.SchemaURIs),
		UseVersionedBaseURI: p.UseVersionedBaseURI, VersioningMode: string(p.VersioningMode.Or()),
		Versions: versionViews(p)}
}

func fileInfo(f model.File) FileInfo {
	return FileInfo{ID: f.ID, Name: f.Name, Location: f.Path, MimeType: f.MimeType, RepositoryID: f.RepositoryID,
		CreatedBy: f.CreatedBy, ModifiedBy: f.ModifiedBy, CreatedOn: f.CreatedOn, ModifiedOn: f.ModifiedOn,
		VersioningMode: string(f.VersioningMode.Or())}
}

// writeJSON answers 200 with v.
func writeJSON(w http.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "private, no-cache")
	_, err = w.Write(append(b, '\n'))
	return err
}

// readJSON decodes a JSON request body into v; anything that is not one JSON object of v's shape (decodeStrict)
// is 400.
//
// The body must be declared application/json (415 otherwise): a browser sends text/plain or a form cross-site
// without asking first, application/json only after a CORS preflight the hub can refuse.
func readJSON(r *http.Request, v any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	data, err := readBody(r)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return apierr.New(http.StatusBadRequest, "the request needs a JSON body")
	}
	return decodeStrict(data, v, "the JSON body")
}

// readJSONIfAny is readJSON for an optional body: an empty one leaves v as it is.
func readJSONIfAny(r *http.Request, v any) error {
	data, err := readBody(r)
	if err != nil || len(data) == 0 {
		return err
	}
	if err := requireJSON(r); err != nil {
		return err
	}
	return decodeStrict(data, v, "the JSON body")
}

// readBody reads a request body (bounded by the server's MaxBytesReader); only white space is empty.
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		if bodyFailed(err) {
			return nil, err
		}
		return nil, &apierr.Error{Status: http.StatusBadRequest, Message: "reading the body: " + err.Error(), Err: err}
	}
	return bytes.TrimSpace(data), nil
}

// withNotes is a reply with the defaults the server chose where they hide what was created, so that a client
// that did not say "PUBLIC" or "visible" learns it made something private.
type withNotes[T any] struct {
	Item  T
	Notes []string
}

func (n withNotes[T]) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(n.Item)
	if err != nil || len(n.Notes) == 0 {
		return b, err
	}
	notes, err := json.Marshal(n.Notes)
	if err != nil {
		return nil, err
	}
	return append(append(append(b[:len(b)-1], `,"notes":`...), notes...), '}'), nil
}

// requireJSON answers 415 unless the request's Content-Type is application/json (parameters such as charset
// allowed).
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		if ct == "" {
			ct = "none"
		}
		return apierr.New(http.StatusUnsupportedMediaType, "the body must be JSON sent as Content-Type: application/json (got "+ct+")")
	}
	return nil
}

func badRequest(msg string) error { return apierr.New(http.StatusBadRequest, msg) }

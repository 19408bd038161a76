package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/history"
)

// PublicationPatch holds the meta-data fields an update may change (api.md 2.11); nil leaves a field as it is.
// It decodes straight from the JSON of an update request.
type PublicationPatch struct {
	Name                *string               `json:"name"`
	Description         *string               `json:"description"`
	Owner               *string               `json:"owner"`
	Publisher           *string               `json:"publisher"`
	VersioningMode      *model.VersioningMode `json:"versioningMode"`
	VersionLabel        *string               `json:"versionLabel"`
	UseVersionedBaseURI *bool                 `json:"useVersionedBaseUri"`
	SchemaURIs          *[]string             `json:"schemaURIs"`
}

// Content is uploaded content: its bytes and the extension that names its syntax (".ttl", ".rdf", …).
type Content struct {
	Ext  string
	Data []byte
}

// Publications lists a repository's publications as of their latest versions, by name.
func (s *Store) Publications(ctx context.Context, actor model.Actor, repoID string) ([]model.Publication, error) {
	h, err := s.readable(ctx, actor, repoID)
	if err != nil {
		return nil, err
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return nil, err
	}
	items := snap.Items(history.Publication)
	out := make([]model.Publication, 0, len(items))
	for _, it := range items {
		p, err := publicationView(repoID, it, "")
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Publication returns a publication by id at a version ("" for the latest; else a label, version id or commit).
func (s *Store) Publication(ctx context.Context, actor model.Actor, id, version string) (model.Publication, error) {
	h, it, err := s.item(ctx, actor, history.Publication, id)
	if err != nil {
		return model.Publication{}, err
	}
	return publicationView(h.id, it, version)
}

// FindPublication finds a publication of a repository by its publicationUri, else by its name (api.md's
// updatePublication rule).
func (s *Store) FindPublication(ctx context.Context, actor model.Actor, repoID, uriOrName string) (model.Publication, error) {
	h, err := s.readable(ctx, actor, repoID)
	if err != nil {
		return model.Publication{}, err
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return model.Publication{}, err
	}
	if it, ok := snap.ByName(history.Publication, strings.Trim(uriOrName, "/")); ok {
		return publicationView(repoID, it, "")
	}
	for _, it := range snap.Items(history.Publication) {
		var m model.PublicationMeta
		if json.Unmarshal(it.Meta, &m) == nil && m.Name == uriOrName {
			return publicationView(repoID, it, "")
		}
	}
	return model.Publication{}, model.NotFoundf("publication %q not found in repository %s", uriOrName, repoID)
}

// PublicationOrVersion resolves an id that names either a publication (its latest version) or one version of a
// publication, as the delta route accepts.
func (s *Store) PublicationOrVersion(ctx context.Context, actor model.Actor, id string) (model.Publication, error) {
	p, err := s.Publication(ctx, actor, id, "")
	if !errors.Is(err, model.ErrNotFound) {
		return p, err
	}
	repoID, err := s.locate(ctx, id)
	if err != nil || repoID == "" {
		return model.Publication{}, model.NotFoundf("no publication or version %s", id)
	}
	h, err := s.readable(ctx, actor, repoID)
	if err != nil {
		return model.Publication{}, model.NotFoundf("no publication or version %s", id)
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return model.Publication{}, err
	}
	for _, it := range snap.Items(history.Publication) {
		if _, ok := it.Find(id); ok {
			return publicationView(repoID, it, id)
		}
	}
	return model.Publication{}, model.NotFoundf("no publication or version %s", id)
}

// PublicationContent returns a publication at a version with its content as stored. The content may be shared
// with other callers (a just-committed upload is served from memory), so it must not be modified.
func (s *Store) PublicationContent(ctx context.Context, actor model.Actor, id, version string) (model.Publication, []byte, error) {
	return s.publicationContent(ctx, actor, id, version, (*gitrepo.Repo).SharedBlob)
}

func (s *Store) publicationContent(ctx context.Context, actor model.Actor, id, version string, read func(*gitrepo.Repo, plumbing.Hash) ([]byte, error)) (model.Publication, []byte, error) {
	h, it, err := s.item(ctx, actor, history.Publication, id)
	if err != nil {
		return model.Publication{}, nil, err
	}
	p, err := publicationView(h.id, it, version)
	if err != nil {
		return model.Publication{}, nil, err
	}
	data, err := read(h.git, plumbing.NewHash(p.Version.Blob))
	if err != nil {
		return model.Publication{}, nil, fmt.Errorf("store: %w", err)
	}
	return p, data, nil
}

// TakePublicationContent is PublicationContent for the pipeline, which reads each version once, right after its
// commit: the bytes the store kept from the upload (gitrepo.Repo.TakeSharedBlob) are handed over and no longer
// kept, so a server holds no upload longer than its rendering. A later read inflates the blob from git.
func (s *Store) TakePublicationContent(ctx context.Context, actor model.Actor, id, version string) (model.Publication, []byte, error) {
	return s.publicationContent(ctx, actor, id, version, (*gitrepo.Repo).TakeSharedBlob)
}

// RecycleContent gives back the bytes TakePublicationContent returned, once the caller is done with them and has
// kept nothing that points into them, to be the buffer of a next large upload (UploadBuffer). Bytes another reader
// may hold are not reused (gitrepo.RecycleBlob).
func (s *Store) RecycleContent(data []byte) { gitrepo.RecycleBlob(data) }

// UploadBuffer returns an empty slice with room for n bytes to read a large upload into: the memory of the last
// rendered upload when it fits, which is already in place, instead of new memory whose pages the system must
// supply on first touch (about 1 CPU-s for 181 MB on the project's virtual machine).
func (s *Store) UploadBuffer(n int) []byte { return gitrepo.UploadBuffer(n) }

// item finds a publication or file by id, wherever it lives, for an actor who may read its repository.
func (s *Store) item(ctx context.Context, actor model.Actor, kind history.Kind, id string) (*handle, *history.Item, error) {
	notFound := model.NotFoundf("%s %s not found", kind, id)
	repoID, err := s.locate(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if repoID == "" {
		return nil, nil, notFound
	}
	h, err := s.readable(ctx, actor, repoID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, notFound
	}
	if err != nil {
		return nil, nil, err
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return nil, nil, err
	}
	it, ok := snap.Item(id)
	if !ok || it.Kind != kind {
		return nil, nil, notFound
	}
	return h, it, nil
}

// locate returns the repository holding a publication, file or version id ("" when none does). Known ids come from the last
// snapshots; an unknown id brings every repository up to date once before giving up.
func (s *Store) locate(ctx context.Context, id string) (string, error) {
	s.mu.Lock()
	repoID, ok := s.where[id]
	s.mu.Unlock()
	if ok {
		if h, err := s.handle(ctx, repoID); err == nil {
			if snap, err := s.snapshot(ctx, h); err == nil && holds(snap, id) {
				return repoID, nil
			}
		}
	}
	st, err := s.Catalog(ctx)
	if err != nil {
		return "", err
	}
	for rid := range st.Repos {
		h, err := s.handle(ctx, rid)
		if err != nil {
			return "", err
		}
		snap, err := s.snapshot(ctx, h)
		if err != nil {
			return "", err
		}
		if holds(snap, id) {
			return rid, nil
		}
	}
	return "", nil
}

// holds reports whether a snapshot has a publication, file or version with an id.
func holds(snap *history.Snapshot, id string) bool {
	if _, ok := snap.Item(id); ok {
		return true
	}
	for _, kind := range []history.Kind{history.Publication, history.File} {
		for _, it := range snap.Items(kind) {
			for _, v := range it.Versions {
				if v.ID == id {
					return true
				}
			}
		}
	}
	return false
}

// publicationView renders an item at a version. Under NONE only the latest version exists for readers.
func publicationView(repoID string, it *history.Item, version string) (model.Publication, error) {
	var m model.PublicationMeta
	// A sidecar broken by a commit made behind the hub's back (pushes check them) reads as defaults, as the index
	// reads it: one bad file must not take the repository's listing down.
	_ = json.Unmarshal(it.Meta, &m)
	m.ID = it.ID
	if m.Name == "" {
		m.Name = path.Base(it.Name)
	}
	m.PublicationURI = it.Name
	m.VersioningMode = it.Mode
	m.VersionLabel = ""
	versions, v, err := offered(it, version)
	if err != nil {
		return model.Publication{}, err
	}
	created := it.Versions[0].Time
	if len(it.Retracted) > 0 && it.Retracted[0].Time.Before(created) {
		created = it.Retracted[0].Time
	}
	return model.Publication{PublicationMeta: m, RepositoryID: repoID, Path: v.Path, Version: v,
		Versions: versions, Retracted: it.Retracted, CreatedOn: created, ModifiedOn: it.Latest().Time}, nil
}

// offered returns the versions readers may see (only the latest under NONE) and the one ref names ("" for the
// latest).
func offered(it *history.Item, ref string) ([]model.Version, model.Version, error) {
	versions := it.Versions
	if it.Mode == model.None {
		versions = versions[len(versions)-1:]
	}
	if ref == "" {
		return versions, versions[len(versions)-1], nil
	}
	v, ok := (&history.Item{Versions: versions}).Find(ref)
	if !ok {
		return nil, model.Version{}, model.NotFoundf("%s %s has no version %q", it.Kind, it.ID, ref)
	}
	return versions, v, nil
}

func (s *Store) checkExt(ext string) (string, error) {
	ext = strings.ToLower(ext)
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	if !history.RDFExtensions[ext] {
		return "", model.Invalidf("unsupported publication format %q", ext)
	}
	return ext, nil
}

// validPublicationURI checks a publication name (its publicationUri): slash-separated pathSegments, not inside files/.
func validPublicationURI(uri string) error {
	if uri == "" {
		return model.Invalidf("a publication needs a name or publicationUri")
	}
	if len(uri) > model.MaxPathLen {
		return model.Invalidf("publicationUri %.40q…: %d bytes, more than the limit of %d (the site stores a publication along its URL path)", uri, len(uri), model.MaxPathLen)
	}
	for i, seg := range strings.Split(uri, "/") {
		if !model.ValidSegment(seg) {
			return model.Invalidf("publicationUri %q: segment %q must be 1-64 characters of [A-Za-z0-9._-], not starting with '.'", uri, seg)
		}
		if i == 0 && seg == strings.TrimSuffix(history.FilesDir, "/") {
			return model.Invalidf("publicationUri %q: files/ holds files, not publications", uri)
		}
		if why := model.ReservedSegment(seg, false); why != "" {
			return model.Invalidf("publicationUri %q: segment %q is reserved: %s", uri, seg, why)
		}
	}
	if _, _, meta := history.Classify(uri + ".ttl"); meta || strings.HasSuffix(uri, ".meta") {
		return model.Invalidf("publicationUri %q ends like a meta-data file", uri)
	}
	return nil
}

func (s *Store) checkContent(ctx context.Context, p string, data []byte) error {
	if err := s.validate(ctx, p, data); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &model.ContentError{Path: p, Err: err}
	}
	return nil
}

// stageAbove is the upload size from which the blob is hashed and compressed while the content is validated
// rather than after: for a 181 MB upload validation takes 0.25–0.4 s of CPU and the blob 0.6 s, one after the
// other on the path of every upload until it is live. Below it a goroutine and a temporary file cost more than
// they save.
const stageAbove = 1 << 20

// checkAndStage validates data as the content at p and, for a large upload, writes its blob at the same time. The
// staged blob (nil for small content, which the transaction writes itself) must be committed with Tx.PutStaged or
// discarded; content that fails validation leaves nothing behind.
func (s *Store) checkAndStage(ctx context.Context, h *handle, p string, data []byte) (*gitrepo.StagedBlob, error) {
	if len(data) < stageAbove {
		return nil, s.checkContent(ctx, p, data)
	}
	// Validation runs before the blob's SHA-1 on one goroutine while the blob is deflated on this one: two
	// halves of about equal length, one per core.
	var verr error
	sb, err := h.git.StageBlobAlongside(data, func() error {
		verr = s.checkContent(ctx, p, data)
		return verr
	})
	if verr != nil {
		return nil, verr
	}
	if err != nil {
		return nil, fmt.Errorf("store: stage %s: %w", p, err)
	}
	return sb, nil
}

// putContent writes data at p, through the staged blob when there is one.
func putContent(tx *gitrepo.Tx, p string, data []byte, sb *gitrepo.StagedBlob) {
	if sb != nil {
		tx.PutStaged(p, sb)
		return
	}
	tx.Put(p, data)
}

// CreatePublication adds a publication to a repository (PUBLISHER): its content and its meta-data sidecar in one
// commit. The content is validated in full first; bad content is refused and nothing is written.
func (s *Store) CreatePublication(ctx context.Context, actor model.Actor, repoID string, meta model.PublicationMeta, c Content) (model.Publication, error) {
	h, err := s.writable(ctx, actor, repoID, model.Publisher)
	if err != nil {
		return model.Publication{}, err
	}
	ext, err := s.checkExt(c.Ext)
	if err != nil {
		return model.Publication{}, err
	}
	if strings.TrimSpace(meta.Name) == "" && meta.PublicationURI == "" {
		return model.Publication{}, model.Invalidf("a publication needs a name")
	}
	uri := strings.Trim(meta.PublicationURI, "/")
	if uri == "" {
		uri = model.SegmentFrom(meta.Name)
	}
	if err := validPublicationURI(uri); err != nil {
		return model.Publication{}, err
	}
	if meta.Name == "" {
		meta.Name = path.Base(uri)
	}
	if !meta.VersioningMode.Valid() {
		return model.Publication{}, model.Invalidf("unknown versioningMode %q", meta.VersioningMode)
	}
	meta.VersioningMode = meta.VersioningMode.Or()
	if err := checkLabel(meta.VersioningMode, meta.VersionLabel, nil); err != nil {
		return model.Publication{}, err
	}
	if meta.VersioningMode != model.Custom {
		meta.VersionLabel = ""
	}
	contentPath := uri + ext
	sb, err := s.checkAndStage(ctx, h, contentPath, c.Data)
	if err != nil {
		return model.Publication{}, err
	}
	if sb != nil {
		defer sb.Discard() // nothing once committed
	}
	meta.ID = model.NewID()
	meta.PublicationURI = uri
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		if it, ok := snap.ByName(history.Publication, uri); ok {
			return "", model.Conflictf("publication %q already exists in this repository (%s)", uri, it.Path)
		}
		if other, ok := shadowing(snap, uri); ok {
			return "", model.Conflictf("publicationUri %q would share URLs with publication %q: a publication's versions and resources live below its URL, so neither may lie below the other", uri, other)
		}
		if _, ok := snap.ByName(history.File, uri); ok || isDir(tx, uri) {
			return "", model.Conflictf("publicationUri %q clashes with an existing path", uri)
		}
		if err := putJSON(tx, history.MetaPath(history.Publication, uri), meta); err != nil {
			return "", err
		}
		putContent(tx, contentPath, c.Data, sb)
		return fmt.Sprintf("Create publication %s (%s)%s", uri, meta.Name, labelNote(meta.VersioningMode, meta.VersionLabel)), nil
	})
	if err != nil {
		return model.Publication{}, err
	}
	return s.Publication(ctx, actor, meta.ID, "")
}

// shadowing returns a publication of snap whose URL space uri would fall into, or that would fall into uri's: one
// is a proper prefix of the other (pub and pub/versions/3c5afce, pub/Thing). Either way one URL would name two
// things, and a version URL served as immutable would change its meaning.
func shadowing(snap *history.Snapshot, uri string) (string, bool) {
	for i := strings.IndexByte(uri, '/'); i >= 0; i = nextSlash(uri, i) {
		if _, ok := snap.ByName(history.Publication, uri[:i]); ok {
			return uri[:i], true
		}
	}
	for _, it := range snap.Items(history.Publication) {
		if strings.HasPrefix(it.Name, uri+"/") {
			return it.Name, true
		}
	}
	return "", false
}

// nextSlash is the index of the next '/' in s after i, or -1.
func nextSlash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

func isDir(tx *gitrepo.Tx, p string) bool {
	if tx.Tree == nil {
		return false
	}
	e, err := tx.Tree.FindEntry(p)
	return err == nil && !e.Mode.IsFile()
}

func labelNote(mode model.VersioningMode, label string) string {
	if mode == model.Custom && label != "" {
		return "\n\nVersion label: " + label
	}
	return ""
}

// checkLabel enforces CUSTOM's rule: a new version needs a label no earlier version of the item has.
func checkLabel(mode model.VersioningMode, label string, it *history.Item) error {
	if mode != model.Custom {
		if label != "" {
			// Dropping it would answer 200 with a label the client never sees applied.
			return model.Invalidf("versionLabel %q applies only to versioningMode CUSTOM (here %s, which numbers versions itself)", label, mode)
		}
		return nil
	}
	if label == "" {
		return model.Invalidf("versioningMode CUSTOM needs a versionLabel")
	}
	if strings.ContainsAny(label, "/\n") || len(label) > 128 {
		return model.Invalidf("versionLabel %q: at most 128 characters, no '/' or newline", label)
	}
	if it != nil && it.HasLabel(label) {
		return model.Conflictf("version label %q already exists", label)
	}
	return nil
}

// UpdatePublication changes a publication (PUBLISHER): new content (nil Data keeps it) makes a new version,
// patched meta-data alone does not. Either way it is one commit.
func (s *Store) UpdatePublication(ctx context.Context, actor model.Actor, id string, patch PublicationPatch, c *Content) (_ model.Publication, err error) {
	h, err := s.writableItem(ctx, actor, history.Publication, id)
	if err != nil {
		return model.Publication{}, err
	}
	repoID := h.id
	var ext string
	if c != nil {
		if ext, err = s.checkExt(c.Ext); err != nil {
			return model.Publication{}, err
		}
	}
	if patch.VersioningMode != nil && !patch.VersioningMode.Valid() {
		return model.Publication{}, model.Invalidf("unknown versioningMode %q", *patch.VersioningMode)
	}
	if patch.Name != nil && strings.TrimSpace(*patch.Name) == "" {
		return model.Publication{}, model.Invalidf("a publication needs a name")
	}
	// Validate before taking the repository's write lock: parsing a large upload must not stall other writers.
	// A publication's name never changes, so the path checked here is the path written below.
	validated := ""
	var sb *gitrepo.StagedBlob
	// The announced upload's outcome is told once: at the commit, or with the error of an earlier return.
	outcome := func(string, error) {}
	defer func() { outcome("", err) }()
	if c != nil {
		snap, err := s.snapshot(ctx, h)
		if err != nil {
			return model.Publication{}, err
		}
		if it, ok := snap.Item(id); ok {
			outcome = s.announce(Upload{RepositoryID: repoID, PublicationID: id, Path: it.Name + ext, Data: c.Data})
			if sb, err = s.checkAndStage(ctx, h, it.Name+ext, c.Data); err != nil {
				return model.Publication{}, err
			}
			if sb != nil {
				defer sb.Discard() // nothing once committed
			}
			validated = it.Name + ext
		}
	}
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		it, ok := snap.Item(id)
		if !ok || it.Kind != history.Publication {
			return "", model.NotFoundf("publication %s not found", id)
		}
		cur, err := publicationView(repoID, it, "")
		if err != nil {
			return "", err
		}
		m := cur.PublicationMeta
		var changed []string
		apply := func(field string, dst *string, v *string) {
			if v != nil && *v != *dst {
				*dst = *v
				changed = append(changed, field)
			}
		}
		apply("name", &m.Name, patch.Name)
		apply("description", &m.Description, patch.Description)
		apply("owner", &m.Owner, patch.Owner)
		apply("publisher", &m.Publisher, patch.Publisher)
		if patch.VersioningMode != nil && patch.VersioningMode.Or() != m.VersioningMode {
			m.VersioningMode = patch.VersioningMode.Or()
			changed = append(changed, "versioningMode")
		}
		if patch.UseVersionedBaseURI != nil && *patch.UseVersionedBaseURI != m.UseVersionedBaseURI {
			m.UseVersionedBaseURI = *patch.UseVersionedBaseURI
			changed = append(changed, "useVersionedBaseUri")
		}
		if patch.SchemaURIs != nil && strings.Join(*patch.SchemaURIs, "\n") != strings.Join(m.SchemaURIs, "\n") {
			m.SchemaURIs = *patch.SchemaURIs
			changed = append(changed, "schemaURIs")
		}
		m.VersionLabel = ""
		msg := ""
		if c != nil {
			newPath := it.Name + ext
			sum := func() plumbing.Hash {
				if sb != nil {
					return sb.Hash()
				}
				return plumbing.ComputeHash(plumbing.BlobObject, c.Data)
			}
			if old, _ := gitrepo.File(tx.Tree, newPath); old.String() == sum().String() && newPath == it.Path {
				// The same bytes again: git cannot record a new version of identical content.
				c = nil
			} else {
				label := ""
				if patch.VersionLabel != nil {
					label = *patch.VersionLabel
				}
				if err := checkLabel(m.VersioningMode, label, it); err != nil {
					return "", err
				}
				if m.VersioningMode == model.Custom {
					m.VersionLabel = label
				}
				if validated != newPath {
					if err := s.checkContent(ctx, newPath, c.Data); err != nil {
						return "", err
					}
					validated = newPath
				}
				if newPath != it.Path {
					tx.Delete(it.Path)
				}
				putContent(tx, newPath, c.Data, sb)
				msg = fmt.Sprintf("Update publication %s: new content%s", it.Name, labelNote(m.VersioningMode, m.VersionLabel))
			}
		}
		if msg == "" {
			if len(changed) == 0 {
				return "", nil
			}
			msg = fmt.Sprintf("Update meta-data of publication %s: %s", it.Name, strings.Join(changed, ", "))
		} else if len(changed) > 0 {
			msg = strings.Replace(msg, ": new content", ": new content; meta-data "+strings.Join(changed, ", "), 1)
		}
		return msg, putJSON(tx, history.MetaPath(history.Publication, it.Name), m)
	})
	blob := ""
	if err == nil && c != nil && sb != nil { // c is nil when the bytes were the latest version's already
		blob = sb.Hash().String()
	}
	outcome(blob, err)
	outcome = func(string, error) {}
	if err != nil {
		return model.Publication{}, err
	}
	return s.Publication(ctx, actor, id, "")
}

// DeletePublication removes a publication's content and meta-data in one commit (PUBLISHER). Its history stays
// in git.
func (s *Store) DeletePublication(ctx context.Context, actor model.Actor, id string) (model.Publication, error) {
	before, err := s.Publication(ctx, actor, id, "")
	if err != nil {
		return model.Publication{}, err
	}
	if err := s.deleteItem(ctx, actor, history.Publication, id); err != nil {
		return model.Publication{}, err
	}
	return before, nil
}

// RetractVersion deletes one version of a publication (PUBLISHER), the only way a version can go: git history
// cannot drop a commit that others may have cloned, so one commit, authored by actor, records the retraction in
// the publication's sidecar. The version is then no longer listed or served and its label is never reused; the
// other versions keep their ids and labels. Retracting the latest version makes the previous one the latest,
// and that commit puts the previous content back in the tree, so that a clone and the served publication agree.
// The only version left cannot be retracted (409): that is deleting the publication. It returns the publication
// as of the retracted version.
func (s *Store) RetractVersion(ctx context.Context, actor model.Actor, id, version string) (model.Publication, error) {
	h, err := s.writableItem(ctx, actor, history.Publication, id)
	if err != nil {
		return model.Publication{}, err
	}
	var gone model.Publication
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		it, ok := snap.Item(id)
		if !ok || it.Kind != history.Publication {
			return "", model.NotFoundf("publication %s not found", id)
		}
		p, err := publicationView(h.id, it, version)
		if err != nil {
			return "", err
		}
		v := p.Version
		if len(it.Versions) == 1 {
			return "", model.Conflictf("version %s is the only version of publication %s; delete the publication instead", v.Label, it.Name)
		}
		gone = p
		m := p.PublicationMeta
		m.VersionLabel = ""
		m.RetractedVersions = append(m.RetractedVersions, model.Retraction{Commit: v.Commit, ID: v.ID, Label: v.Label})
		if v.ID == it.Latest().ID {
			prev := it.Versions[len(it.Versions)-2]
			data, err := h.git.Blob(plumbing.NewHash(prev.Blob))
			if err != nil {
				return "", fmt.Errorf("store: content of version %s: %w", prev.Label, err)
			}
			if prev.Path != it.Path {
				tx.Delete(it.Path)
			}
			tx.Put(prev.Path, data)
		}
		if err := putJSON(tx, history.MetaPath(history.Publication, it.Name), m); err != nil {
			return "", err
		}
		return fmt.Sprintf("Retract version %s of publication %s\n\nVersion %s (id %s, commit %s) was deleted through the API;\n"+
			"its commit stays in the history, but it is no longer listed or served.", v.Label, it.Name, v.Label, v.ID, v.Commit), nil
	})
	if err != nil {
		return model.Publication{}, err
	}
	return gone, nil
}

// writableItem returns the repository of a publication or file after checking that actor may publish there.
func (s *Store) writableItem(ctx context.Context, actor model.Actor, kind history.Kind, id string) (*handle, error) {
	notFound := model.NotFoundf("%s %s not found", kind, id)
	repoID, err := s.locate(ctx, id)
	if err != nil {
		return nil, err
	}
	if repoID == "" {
		return nil, notFound
	}
	h, err := s.writable(ctx, actor, repoID, model.Publisher)
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound
	}
	return h, err
}

// deleteItem removes a publication's or file's content and sidecar in one commit.
func (s *Store) deleteItem(ctx context.Context, actor model.Actor, kind history.Kind, id string) error {
	h, err := s.writableItem(ctx, actor, kind, id)
	if err != nil {
		return err
	}
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		it, ok := snap.Item(id)
		if !ok || it.Kind != kind {
			return "", model.NotFoundf("%s %s not found", kind, id)
		}
		tx.Delete(it.Path)
		tx.Delete(history.MetaPath(kind, it.Name))
		return fmt.Sprintf("Delete %s %s", kind, it.Name), nil
	})
	return err
}

// commit runs one write transaction on a repository as actor. fn sees the index as of the transaction's head and
// returns the commit message ("" with no changes). The index is then brought up to date, which also announces
// the change to subscribers.
func (s *Store) commit(ctx context.Context, h *handle, actor model.Actor, fn func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error)) (plumbing.Hash, error) {
	head, err := h.git.Transact(ctx, func(tx *gitrepo.Tx) error {
		snap, err := s.snapshotAt(ctx, h, tx.Head)
		if err != nil {
			return err
		}
		msg, err := fn(tx, snap)
		if err != nil {
			return err
		}
		tx.Author = catalog.Author(actor, s.now())
		tx.Message = msg + "\n"
		return nil
	})
	if err != nil {
		if errors.Is(err, gitrepo.ErrStale) || errors.Is(err, gitrepo.ErrLocked) {
			// Only after Transact's retries: another writer kept committing for seconds on end.
			return head, model.Conflictf("repository %s is being changed by another writer without pause; try again", h.id)
		}
		return head, err
	}
	if _, err := s.snapshot(ctx, h); err != nil {
		return head, err
	}
	return head, nil
}

// snapshotAt returns the index as of head, the commit a write transaction builds on. The index follows the
// branch as its cached head says; when a writer outside the store moved the branch a moment ago that cache may
// still hold the older commit, so it is dropped once. A head that differs even then moved again meanwhile:
// ErrStale makes the transaction start over on the newest commit.
func (s *Store) snapshotAt(ctx context.Context, h *handle, head plumbing.Hash) (*history.Snapshot, error) {
	snap, err := s.snapshot(ctx, h)
	if err != nil || snap.Head == head {
		return snap, err
	}
	h.git.InvalidateHead()
	if snap, err = s.snapshot(ctx, h); err != nil || snap.Head == head {
		return snap, err
	}
	return nil, fmt.Errorf("store: repository %s: index at %s, transaction at %s: %w", h.id, snap.Head, head, gitrepo.ErrStale)
}

func putJSON(tx *gitrepo.Tx, p string, v any) error {
	b, err := model.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", p, err)
	}
	tx.Put(p, b)
	return nil
}

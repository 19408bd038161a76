package store

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
	"github.com/ldhub/ldhub/content/store/history"
)

// FilePatch holds what a file update may change; nil leaves a field as it is.
type FilePatch struct {
	VersioningMode *model.VersioningMode `json:"versioningMode"`
	VersionLabel   *string               `json:"versionLabel"`
	MimeType       *string               `json:"mimeType"`
}

// Files lists a repository's files as of their latest versions, by name.
func (s *Store) Files(ctx context.Context, actor model.Actor, repoID string) ([]model.File, error) {
	h, err := s.readable(ctx, actor, repoID)
	if err != nil {
		return nil, err
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return nil, err
	}
	var out []model.File
	for _, it := range snap.Items(history.File) {
		f, err := s.fileView(h, it, "")
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// File returns a file by id at a version ("" for the latest).
func (s *Store) File(ctx context.Context, actor model.Actor, id, version string) (model.File, error) {
	h, it, err := s.item(ctx, actor, history.File, id)
	if err != nil {
		return model.File{}, err
	}
	return s.fileView(h, it, version)
}

// FileByName returns a repository's file by name at a version ("" for the latest).
func (s *Store) FileByName(ctx context.Context, actor model.Actor, repoID, name, version string) (model.File, error) {
	h, err := s.readable(ctx, actor, repoID)
	if err != nil {
		return model.File{}, err
	}
	snap, err := s.snapshot(ctx, h)
	if err != nil {
		return model.File{}, err
	}
	it, ok := snap.ByName(history.File, strings.Trim(name, "/"))
	if !ok {
		return model.File{}, model.NotFoundf("file %q not found in repository %s", name, repoID)
	}
	return s.fileView(h, it, version)
}

// FileContent returns a file at a version with its bytes.
func (s *Store) FileContent(ctx context.Context, actor model.Actor, id, version string) (model.File, []byte, error) {
	h, it, err := s.item(ctx, actor, history.File, id)
	if err != nil {
		return model.File{}, nil, err
	}
	f, err := s.fileView(h, it, version)
	if err != nil {
		return model.File{}, nil, err
	}
	data, err := h.git.Blob(plumbing.NewHash(f.Version.Blob))
	if err != nil {
		return model.File{}, nil, fmt.Errorf("store: %w", err)
	}
	return f, data, nil
}

func (s *Store) fileView(h *handle, it *history.Item, version string) (model.File, error) {
	var m model.FileMeta
	_ = json.Unmarshal(it.Meta, &m) // a broken sidecar reads as defaults, as for publications

	m.ID, m.Name, m.VersioningMode, m.VersionLabel = it.ID, it.Name, it.Mode, ""
	if m.MimeType == "" {
		m.MimeType = mimeType(it.Name)
	}
	versions, v, err := offered(it, version)
	if err != nil {
		return model.File{}, err
	}
	size, err := h.git.BlobSize(plumbing.NewHash(v.Blob))
	if err != nil {
		return model.File{}, fmt.Errorf("store: %w", err)
	}
	return model.File{FileMeta: m, RepositoryID: h.id, Path: v.Path, Size: size, Version: v, Versions: versions}, nil
}

func mimeType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

func validFileName(name string) error {
	if name == "" {
		return model.Invalidf("a file needs a name")
	}
	if len(name) > model.MaxPathLen {
		return model.Invalidf("file name %.40q…: %d bytes, more than the limit of %d (the site stores a file along its URL path)", name, len(name), model.MaxPathLen)
	}
	for _, seg := range strings.Split(name, "/") {
		if !model.ValidSegment(seg) {
			return model.Invalidf("file name %q: segment %q must be 1-64 characters of [A-Za-z0-9._-], not starting with '.'", name, seg)
		}
	}
	if strings.HasSuffix(name, history.MetaSuffix) {
		return model.Invalidf("file name %q ends like a meta-data file", name)
	}
	return nil
}

// AddFile stores a new file under files/ with its sidecar, in one commit (PUBLISHER).
func (s *Store) AddFile(ctx context.Context, actor model.Actor, repoID string, meta model.FileMeta, data []byte) (model.File, error) {
	h, err := s.writable(ctx, actor, repoID, model.Publisher)
	if err != nil {
		return model.File{}, err
	}
	meta.Name = strings.Trim(meta.Name, "/")
	if err := validFileName(meta.Name); err != nil {
		return model.File{}, err
	}
	if !meta.VersioningMode.Valid() {
		return model.File{}, model.Invalidf("unknown versioningMode %q", meta.VersioningMode)
	}
	meta.VersioningMode = meta.VersioningMode.Or()
	if err := checkLabel(meta.VersioningMode, meta.VersionLabel, nil); err != nil {
		return model.File{}, err
	}
	if meta.VersioningMode != model.Custom {
		meta.VersionLabel = ""
	}
	if meta.MimeType == "" {
		meta.MimeType = mimeType(meta.Name)
	}
	now := s.now().UnixMilli()
	meta.ID = model.NewID()
	meta.CreatedBy, meta.CreatedOn, meta.ModifiedBy, meta.ModifiedOn = actor.CredentialID, now, actor.CredentialID, now
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		if _, ok := snap.ByName(history.File, meta.Name); ok || isDir(tx, history.FilesDir+meta.Name) {
			return "", model.Conflictf("file %q already exists in this repository", meta.Name)
		}
		if err := putJSON(tx, history.MetaPath(history.File, meta.Name), meta); err != nil {
			return "", err
		}
		tx.Put(history.FilesDir+meta.Name, data)
		return fmt.Sprintf("Add file %s%s", meta.Name, labelNote(meta.VersioningMode, meta.VersionLabel)), nil
	})
	if err != nil {
		return model.File{}, err
	}
	return s.File(ctx, actor, meta.ID, "")
}

// UpdateFile replaces a file's content (a new version; nil data keeps it) and/or patches its meta-data, in one
// commit (PUBLISHER).
func (s *Store) UpdateFile(ctx context.Context, actor model.Actor, id string, patch FilePatch, data []byte) (model.File, error) {
	h, err := s.writableItem(ctx, actor, history.File, id)
	if err != nil {
		return model.File{}, err
	}
	if patch.VersioningMode != nil && !patch.VersioningMode.Valid() {
		return model.File{}, model.Invalidf("unknown versioningMode %q", *patch.VersioningMode)
	}
	_, err = s.commit(ctx, h, actor, func(tx *gitrepo.Tx, snap *history.Snapshot) (string, error) {
		it, ok := snap.Item(id)
		if !ok || it.Kind != history.File {
			return "", model.NotFoundf("file %s not found", id)
		}
		cur, err := s.fileView(h, it, "")
		if err != nil {
			return "", err
		}
		m := cur.FileMeta
		var changed []string
		if patch.VersioningMode != nil && patch.VersioningMode.Or() != m.VersioningMode {
			m.VersioningMode = patch.VersioningMode.Or()
			changed = append(changed, "versioningMode")
		}
		if patch.MimeType != nil && *patch.MimeType != m.MimeType {
			m.MimeType = *patch.MimeType
			changed = append(changed, "mimeType")
		}
		msg := ""
		if data != nil && plumbing.ComputeHash(plumbing.BlobObject, data) != it.Blob {
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
			tx.Put(it.Path, data)
			msg = fmt.Sprintf("Update file %s: new content%s", it.Name, labelNote(m.VersioningMode, m.VersionLabel))
		} else if len(changed) == 0 {
			return "", nil
		} else {
			msg = fmt.Sprintf("Update meta-data of file %s: %s", it.Name, strings.Join(changed, ", "))
		}
		m.ModifiedBy, m.ModifiedOn = actor.CredentialID, s.now().UnixMilli()
		return msg, putJSON(tx, history.MetaPath(history.File, it.Name), m)
	})
	if err != nil {
		return model.File{}, err
	}
	return s.File(ctx, actor, id, "")
}

// DeleteFile removes a file and its sidecar in one commit (PUBLISHER).
func (s *Store) DeleteFile(ctx context.Context, actor model.Actor, id string) (model.File, error) {
	before, err := s.File(ctx, actor, id, "")
	if err != nil {
		return model.File{}, err
	}
	if err := s.deleteItem(ctx, actor, history.File, id); err != nil {
		return model.File{}, err
	}
	return before, nil
}

package server

import (
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
)

func (s *Server) getRepositoryFiles(w http.ResponseWriter, r *http.Request, c *call) error {
	fs, err := s.cfg.Store.Files(r.Context(), c.actor, c.p("repositoryId"))
	if err != nil {
		return err
	}
	out := make([]FileInfo, 0, len(fs))
	for _, f := range fs {
		out = append(out, fileInfo(f))
	}
	return writeJSON(w, out)
}

func (s *Server) addFile(w http.ResponseWriter, r *http.Request, c *call) error {
	parts, err := s.readParts(r, "fileInfo", "content")
	if err != nil {
		return err
	}
	var in FileInfoInput
	if err := jsonPart(parts["fileInfo"], &in); err != nil {
		return err
	}
	content := parts["content"]
	if in.Name == "" {
		in.Name = path.Base(content.filename)
	}
	meta := model.FileMeta{Name: in.Name, VersioningMode: model.VersioningMode(in.VersioningMode), VersionLabel: in.VersionLabel}
	if mt, _, err := mime.ParseMediaType(content.contentType); err == nil && !genericTypes[mt] {
		meta.MimeType = mt
	}
	f, err := s.cfg.Store.AddFile(r.Context(), c.actor, c.p("repositoryId"), meta, content.data)
	if err != nil {
		return err
	}
	return writeJSON(w, fileInfo(f))
}

func (s *Server) getFile(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := s.cfg.Store.File(r.Context(), c.actor, c.p("id"), "")
	if err != nil {
		return err
	}
	return writeJSON(w, fileInfo(f))
}

// updateNonVersionFile replaces a file's content; `versionLabel` may come as a query parameter or in an optional
// `fileInfo` part (needed under CUSTOM).
func (s *Server) updateNonVersionFile(w http.ResponseWriter, r *http.Request, c *call) error {
	parts, err := s.readParts(r, "content")
	if err != nil {
		return err
	}
	var patch store.FilePatch
	if p := parts["fileInfo"]; p != nil {
		var in FileInfoInput
		if err := jsonPart(p, &in); err != nil {
			return err
		}
		if in.VersionLabel != "" {
			patch.VersionLabel = &in.VersionLabel
		}
		if in.VersioningMode != "" {
			m := model.VersioningMode(in.VersioningMode)
			patch.VersioningMode = &m
		}
	}
	if r.URL.Query().Has("versionLabel") {
		l := r.URL.Query().Get("versionLabel")
		patch.VersionLabel = &l
	}
	f, err := s.cfg.Store.UpdateFile(r.Context(), c.actor, c.p("id"), patch, parts["content"].data)
	if err != nil {
		return err
	}
	return writeJSON(w, fileInfo(f))
}

func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request, c *call) error {
	f, err := s.cfg.Store.DeleteFile(r.Context(), c.actor, c.p("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, fileInfo(f))
}

func (s *Server) downloadFile(w http.ResponseWriter, r *http.Request, c *call) error {
	f, data, err := s.cfg.Store.FileContent(r.Context(), c.actor, c.p("id"), r.URL.Query().Get("version"))
	if err != nil {
		return err
	}
	return sendFile(w, f, data)
}

// getFileContent and getVersionOfFileContent answer with the bytes (decisions.md: the "File" schema documents a
// streamed resource).
func (s *Server) getFileContent(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.fileByName(w, r, c, "")
}

func (s *Server) getVersionOfFileContent(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.fileByName(w, r, c, c.p("version"))
}

func (s *Server) fileByName(w http.ResponseWriter, r *http.Request, c *call, version string) error {
	f, err := s.cfg.Store.FileByName(r.Context(), c.actor, c.p("repositoryId"), c.p("filename"), version)
	if err != nil {
		return err
	}
	f, data, err := s.cfg.Store.FileContent(r.Context(), c.actor, f.ID, f.Version.ID)
	if err != nil {
		return err
	}
	return sendFile(w, f, data)
}

func sendFile(w http.ResponseWriter, f model.File, data []byte) error {
	h := w.Header()
	h.Set("Content-Type", f.MimeType)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(f.Name)}))
	h.Set("Cache-Control", "private, no-cache")
	_, err := w.Write(data)
	return err
}

package pipeline

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"weak"

	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/site/tree"
)

// sharedDocs gives the workers that read one folder's terms.json at the same time one decoded copy of it: the
// background worker rendering the documented page (later.go) and the term-page worker start on a new latest folder
// together, and each held its own copy, about 1.2 KB a term (300 MB for vocab.MaxTerms). A copy is kept only while
// someone holds it (a weak pointer); the documentation is only read once decoded.
type sharedDocs struct {
	mu   sync.Mutex
	docs map[docKey]weak.Pointer[vocab.Doc]
	busy map[docKey]chan struct{} // the files being decoded, closed when done
}

// docKey names one terms.json file as it is: a folder's file is replaced, never changed in place.
type docKey struct {
	path string
	size int64
	mod  time.Time
}

// read decodes the terms.json of dir, or hands out the copy another worker holds; nil when there is none (a folder
// rendered before ldhub wrote it). A second reader of a file being decoded waits for that copy rather than decoding
// its own.
func (s *sharedDocs) read(dir string) (*vocab.Doc, error) {
	f, err := os.Open(filepath.Join(dir, tree.Terms))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	k := docKey{filepath.Join(dir, tree.Terms), fi.Size(), fi.ModTime()}
	s.mu.Lock()
	for {
		if d := s.docs[k].Value(); d != nil {
			s.mu.Unlock()
			return d, nil
		}
		ch, ok := s.busy[k]
		if !ok {
			break
		}
		s.mu.Unlock()
		<-ch
		s.mu.Lock()
	}
	if s.busy == nil {
		s.docs, s.busy = map[docKey]weak.Pointer[vocab.Doc]{}, map[docKey]chan struct{}{}
	}
	ch := make(chan struct{})
	s.busy[k] = ch
	s.mu.Unlock()
	d, err := vocab.Decode(bufio.NewReaderSize(f, 1<<16))
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, k)
	close(ch)
	for key, wp := range s.docs {
		if wp.Value() == nil {
			delete(s.docs, key)
		}
	}
	if err != nil {
		return nil, err
	}
	s.docs[k] = weak.Make(d)
	return d, nil
}

// readTerms reads what a rendered folder's version defines, for its page: none when the folder has none (rendered
// before ldhub wrote it) or it does not decode.
func (p *Pipeline) readTerms(dir string) *vocab.Doc {
	d, _ := p.docs.read(dir)
	return d
}

package store

import "context"

// SetBeforeRefUpdate injects a failure between a write's object writes and its ref update.
func (s *Store) SetBeforeRefUpdate(ctx context.Context, repoID string, f func() error) error {
	h, err := s.handle(ctx, repoID)
	if err != nil {
		return err
	}
	h.git.BeforeRefUpdate = f
	return nil
}

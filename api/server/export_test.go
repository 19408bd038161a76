package server

// IndexBuilds is how many in-memory index builds s started.
func (s *Server) IndexBuilds() int64 { return s.builds.count.Load() }

// HoldIndexBuilds makes every in-memory index build wait, in its slot, until release is closed.
func (s *Server) HoldIndexBuilds(release <-chan struct{}) { s.builds.hook = func() { <-release } }

package pipeline

// SetTermPageHook makes the term-page worker call f before each Hugo build of term pages, so that a test can hold
// it there and look at the tree meanwhile.
func SetTermPageHook(p *Pipeline, f func()) {
	p.terms.mu.Lock()
	defer p.terms.mu.Unlock()
	p.terms.hook = f
}

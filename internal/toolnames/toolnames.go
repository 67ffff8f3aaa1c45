// Package toolnames records the tool names registered on one server, so that
// an adapter can refuse a bad or duplicate tool at registration.
package toolnames

import (
	"sync"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

// Set is the set of tools registered on one server. The zero Set is empty
// and ready to use; it is safe for concurrent use. A Set must not be copied
// after first use.
type Set struct {
	mu    sync.Mutex
	names map[string]struct{}
}

// Add records name. It returns a *toolerr.DefinitionError if the name is
// invalid (codes.InvalidToolName, from toolerr.CheckToolName) or already
// recorded (codes.DuplicateTool), and then records nothing.
func (s *Set) Add(name string) error {
	if err := toolerr.CheckToolName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.names[name]; dup {
		return &toolerr.DefinitionError{Code: codes.DuplicateTool, Subject: name,
			Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	if s.names == nil {
		s.names = make(map[string]struct{})
	}
	s.names[name] = struct{}{}
	return nil
}

// Remove forgets name, so that a tool whose registration failed after Add
// can be registered again once fixed. Removing a name that is not recorded
// does nothing.
func (s *Set) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.names, name)
}

// Has reports whether name is recorded.
func (s *Set) Has(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.names[name]
	return ok
}
